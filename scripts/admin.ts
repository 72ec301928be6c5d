// `npm run admin -- <area> <command>`: maintenance commands for an operator, against the
// database of DATABASE_URL / FAULTLINE_DATA_DIR, as for `npm start`.
import { createAuth } from "../src/auth/auth";
import {
  addOwner,
  createUser,
  listOrgs,
  listUsers,
  operatorResetLink,
  setDisabled,
} from "../src/auth/operator";
import { newPasswordSchema } from "../src/auth/schemas";
import { type Db, openDb } from "../src/db/connection";
import { env } from "../src/env";
import { isAppError } from "../src/errors";
import { replayDeadLetters } from "../src/ingest/workers/replay-dead-letters";
import { runInstanceCommand } from "../src/instance/admin-command";

interface Command {
  usage: string;
  help: string;
  run: (db: Db, args: string[]) => Promise<void>;
}

const COMMANDS: Record<string, Command> = {
  "users list": {
    usage: "users list",
    help: "every account: email, name, disabled or not, organizations and roles",
    run: async (db) => {
      const users = await listUsers(db);
      if (users.length === 0) console.log("no users");
      for (const u of users)
        console.log(
          `${u.email}\t${u.name}\t${u.disabled ? "disabled" : "active"}\t${u.memberships.join(", ") || "-"}`,
        );
    },
  },
  "users create": {
    usage: "users create --email <email> --password <password> [--owner-of <org>]",
    help: "a new account that signs in with this password, optionally an owner of <org>",
    run: async (db, args) => {
      const email = required(args, "--email");
      const password = newPasswordSchema.safeParse(required(args, "--password"));
      if (!password.success) fail(`--password: ${password.error.issues[0]?.message}`);
      const ownerOf = option(args, "--owner-of");
      await createUser(
        { db, auth: await createAuth(db) },
        { email, password: password.data, ownerOf },
      );
      console.log(`created ${email.toLowerCase()}${ownerOf ? `, owner of ${ownerOf}` : ""}`);
    },
  },
  "users reset-password": {
    usage: "users reset-password <email>",
    help: "prints a link that sets a new password: works once, for one hour (FAULTLINE_URL names the site)",
    run: async (db, args) => {
      const email = positional(args, "<email>");
      const base = env().FAULTLINE_URL ?? `http://localhost:${env().PORT}`;
      const link = await operatorResetLink(db, email, base);
      console.log(link.url);
      console.log(`valid until ${new Date(link.expiresAt).toISOString()}, once`);
    },
  },
  "users disable": {
    usage: "users disable <email>",
    help: "the account can no longer sign in; its sessions end now",
    run: async (db, args) => {
      const email = positional(args, "<email>");
      const changed = await setDisabled({ db, auth: await createAuth(db) }, email, true);
      console.log(changed ? `disabled ${email}` : `${email} was disabled already`);
    },
  },
  "users enable": {
    usage: "users enable <email>",
    help: "a disabled account can sign in again",
    run: async (db, args) => {
      const email = positional(args, "<email>");
      const changed = await setDisabled({ db, auth: await createAuth(db) }, email, false);
      console.log(changed ? `enabled ${email}` : `${email} was not disabled`);
    },
  },
  "orgs list": {
    usage: "orgs list",
    help: "every organization: slug, name and owners",
    run: async (db) => {
      for (const o of await listOrgs(db))
        console.log(`${o.slug}\t${o.name}\towners: ${o.owners.join(", ") || "-"}`);
    },
  },
  "orgs add-owner": {
    usage: "orgs add-owner <org> <email>",
    help: "makes the account an owner of the organization (adds or promotes it)",
    run: async (db, args) => {
      const [org, email] = [positional(args, "<org>", 0), positional(args, "<email>", 1)];
      await addOwner(db, org, email);
      console.log(`${email.toLowerCase()} is now an owner of ${org}`);
    },
  },
  "queue dead-letters": {
    usage: "queue dead-letters",
    help: "list the envelopes the worker could not store",
    run: async (db) => {
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
    },
  },
  "queue replay-dead-letters": {
    usage: "queue replay-dead-letters [--id N ...] [--project N ...]",
    help: "process and store them again (after a fix); each one stored leaves the list, one that fails again stays",
    run: async (db, args) => {
      const result = await replayDeadLetters(db, {
        ids: numbers(args, "--id"),
        projectIds: numbers(args, "--project"),
      });
      console.log(`replayed: ${result.replayed}, failed again: ${result.failed.length}`);
      for (const f of result.failed) console.log(`  #${f.id}: ${f.error}`);
      if (result.failed.length > 0) process.exitCode = 1;
    },
  },
  ...instanceCommand("admins", "instance admins", "list the instance administrators"),
  ...instanceCommand(
    "add-admin",
    "instance add-admin <email>",
    "name an administrator (a user who signs in with <email>)",
  ),
  ...instanceCommand(
    "remove-admin",
    "instance remove-admin <email>",
    "remove one (never the last)",
  ),
  ...instanceCommand(
    "org-creation",
    "instance org-creation [admins|everyone]",
    "show, or set, who may create organizations",
  ),
};

/** The instance page's settings (src/instance/admin-command.ts), one command each. */
function instanceCommand(name: string, usage: string, help: string): Record<string, Command> {
  return {
    [`instance ${name}`]: {
      usage,
      help,
      run: async (db, args) => {
        const result = await runInstanceCommand(db, name, args[0]);
        if (!result.ok) fail(result.output);
        console.log(result.output);
      },
    },
  };
}

const USAGE = `usage: npm run admin -- <command> [options]   (each command also takes --help)

commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}\n      ${c.help}`)
  .join("\n")}
  --help
      this text`;

let current: Command | undefined;

function fail(message: string): never {
  console.error(`${message}\n\nusage: npm run admin -- ${current?.usage ?? "<command>"}`);
  process.exit(2);
}

function option(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith("--")) fail(`${flag} needs a value`);
  return value;
}

function required(args: string[], flag: string): string {
  return option(args, flag) ?? fail(`${flag} is required`);
}

/** The n-th argument that is not a flag. */
function positional(args: string[], name: string, n = 0): string {
  return args.filter((a) => !a.startsWith("--"))[n] ?? fail(`${name} is required`);
}

/** The numbers given after each `flag`. */
function numbers(args: string[], flag: string): number[] | undefined {
  const out: number[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== flag) continue;
    const n = Number(args[i + 1]);
    if (!Number.isInteger(n) || n <= 0) fail(`${flag} needs a positive integer`);
    out.push(n);
  }
  return out.length > 0 ? out : undefined;
}

const argv = process.argv.slice(2);
const wantsHelp = argv.includes("--help") || argv.includes("-h");
current = COMMANDS[argv.slice(0, 2).join(" ")];
if (!current) {
  if (argv.length === 0 || (wantsHelp && argv.length === 1)) {
    console.log(USAGE);
    process.exit(argv.length === 0 ? 2 : 0);
  }
  console.error(`unknown command: ${argv.join(" ")}\n\n${USAGE}`);
  process.exit(2);
}
if (wantsHelp) {
  console.log(`usage: npm run admin -- ${current.usage}\n\n${current.help}`);
  process.exit(0);
}

const db = openDb();
try {
  await current.run(db, argv.slice(2));
} catch (err) {
  if (!isAppError(err)) throw err;
  console.error(`error: ${err.message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
