// Backups of the embedded database taken by the running service (docs/operations.md "Backups"):
// only the process that holds a PGlite data directory may read it, so `portage backup` asks it
// over HTTP while it runs. PostgreSQL has its own tools (pg_dump).
import { conflict } from '../../contract/errors.ts';
import type { Database } from '../../db/index.ts';
import { recordAdminAction } from '../audit/service.ts';
import type { RequestContext } from '../context.ts';

export interface Backups {
  /** The database as a gzipped tarball; recorded in the audit log first, so the copy holds its own record. */
  take(ctx: RequestContext): Promise<Buffer>;
}

export function createBackups(database: Database): Backups {
  // One at a time: a copy is held in memory whole (about the database's size, compressed).
  let running = false;
  return {
    async take(ctx) {
      if (!database.backup) throw conflict('error.backup.postgres');
      if (running) throw conflict('error.backup.running');
      running = true;
      try {
        await recordAdminAction(ctx, { action: 'database.backup', subject: 'database' });
        return Buffer.from(await (await database.backup()).arrayBuffer());
      } finally {
        running = false;
      }
    },
  };
}

/** The file name offered for a backup taken at `at`: portage-2026-12-01T10-00-00Z.tar.gz. */
export const backupFileName = (at: Date) =>
  `portage-${at
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-')}.tar.gz`;
