/**
 * The directories under the data directory (beside the SQLite file) where Faultline keeps
 * files of its own, which a backup copies with the database (src/maintenance/backup.ts).
 * Add a directory here when a feature starts storing files there.
 */
export const DATA_DIRECTORIES: readonly string[] = [
  // Attachment bytes, content-addressed (src/attachments/storage.ts).
  "attachments",
];
