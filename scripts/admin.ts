// `npm run admin -- <area> <command>`: maintenance commands for an operator, against the
// database of DATABASE_URL / FAULTLINE_DATA_DIR, as for `npm start`.
import { openDb } from "../src/db/connection";
import { replayDeadLetters } from "../src/ingest/workers/replay-dead-letters";
import { INSTANCE_USAGE, runInstanceCommand } from "../src/instance/admin-command";

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  queue dead-letters                 list the envelopes the worker could not store
  queue replay-dead-letters [--id N ...] [--project N ...]
                                     process and store them again (after a fix); each one
                                     stored leaves the list, one that fails again stays
${INSTANCE_USAGE}
  --help                             this text`;

const args = process.argv.slice(2);
if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  process.exit(args.length === 0 ? 2 : 0);
}

/** The numbers given after each `flag`. */
function numbers(flag: string): number[] | undefined {
  const out: number[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== flag) continue;
    const n = Number(args[i + 1]);
    if (!Number.isInteger(n) || n <= 0) {
      console.error(`${flag} needs a positive integer\n\n${USAGE}`);
      process.exit(2);
    }
    out.push(n);
  }
  return out.length > 0 ? out : undefined;
}

const [area, command] = args;
if (area === "instance") {
  const db = openDb();
  try {
    const result = await runInstanceCommand(db, command, args[2]);
    if (result.ok) console.log(result.output);
    else console.error(`${result.output}\n\n${USAGE}`);
    process.exitCode = result.ok ? 0 : 2;
  } finally {
    await db.close();
  }
  process.exit();
}
if (area !== "queue" || (command !== "dead-letters" && command !== "replay-dead-letters")) {
  console.error(`unknown command: ${args.join(" ")}\n\n${USAGE}`);
  process.exit(2);
}

const db = openDb();
try {
  if (command === "dead-letters") {
    const rows = await db.kysely
      .selectFrom("dead_letters")
      .select(["id", "project_id", "kind", "attempts", "failed_at", "error"])
      .orderBy("id")
      .execute();
    if (rows.length === 0) console.log("no dead letters");
    for (const r of rows)
      console.log(
        `#${r.id} project ${r.project_id} ${r.kind} failed ${new Date(Number(r.failed_at)).toISOString()} (${r.attempts} attempts): ${r.error}`,
      );
  } else {
    const result = await replayDeadLetters(db, {
      ids: numbers("--id"),
      projectIds: numbers("--project"),
    });
    console.log(`replayed: ${result.replayed}, failed again: ${result.failed.length}`);
    for (const f of result.failed) console.log(`  #${f.id}: ${f.error}`);
    if (result.failed.length > 0) process.exitCode = 1;
  }
} finally {
  await db.close();
}
