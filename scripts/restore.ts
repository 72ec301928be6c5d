// `npm run restore -- <folder>`: a backup into an empty data directory
// (src/maintenance/backup.ts). DATABASE_URL / FAULTLINE_DATA_DIR name the directory.
import { BackupError, restore } from "../src/maintenance/backup";

const folder = process.argv[2];
if (!folder) {
  console.error("usage: npm run restore -- <backup folder>");
  process.exit(2);
}
try {
  await restore({ folder, log: (line) => console.log(line) });
  console.log("restore complete: start Faultline with the same DATABASE_URL / FAULTLINE_DATA_DIR");
} catch (err) {
  if (!(err instanceof BackupError)) throw err;
  console.error(`restore failed: ${err.message}`);
  process.exit(1);
}
