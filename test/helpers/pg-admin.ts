// One statement on a PostgreSQL server's own connection (creating and dropping the tests'
// databases), outside any pool. No vitest imports: the global setup uses it too.
import pg from 'pg';

export async function onServer(serverUrl: string, statement: string) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
