// `npm run backup -- <folder>`: a consistent copy of a running SQLite installation
// (src/maintenance/backup.ts). DATABASE_URL / FAULTLINE_DATA_DIR say which, as for `npm start`.
import { BackupError, backup } from "../src/maintenance/backup";

const folder = process.argv[2];
if (!folder) {
  console.error("usage: npm run backup -- <folder>   (a new or empty folder)");
  process.exit(2);
}
try {
  const manifest = await backup({ folder, log: (line) => console.log(line) });
  console.log(`backup complete: ${manifest.files.length} file(s) in ${folder}`);
} catch (err) {
  if (!(err instanceof BackupError)) throw err;
  console.error(`backup failed: ${err.message}`);
  process.exit(1);
}
