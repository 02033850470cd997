// An instance killed while it sends mail: two `portage serve` processes over one PostgreSQL
// database and one SMTP server; the first claims three messages and is killed (SIGKILL) in the
// middle of the first one's SMTP transaction, before the server accepted it. The second sends all
// three once the dead claim's lease ends (renewed while a sender lives, so short), each exactly
// once under its own Message-ID.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { outbox } from '../src/modules/mail/tables.ts';
import { MAIL_LEASE_MS } from '../src/modules/mail/worker.ts';
import { uniqueEmail } from './helpers/app.ts';
import { useTestDatabase } from './helpers/db.ts';
import { type Service, startService, stopService } from './helpers/service.ts';
import { parseEml, startSmtpServer } from './helpers/smtp.ts';

const onPostgres = !!process.env.TEST_DATABASE_URL;

describe.skipIf(!onPostgres)(
  'mail after a killed instance (PostgreSQL only: two processes share the database)',
  () => {
    const database = useTestDatabase();
    const running: Service[] = [];
    const dirs: string[] = [];
    afterAll(async () => {
      for (const s of running) await stopService(s);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    const serve = (smtpUrl: string) => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-mail-crash-'));
      dirs.push(dataDir);
      return startService({
        DATABASE_URL: database.url!,
        DATA_DIR: dataDir,
        PUBLIC_BASE_URL: 'http://portage.test',
        RATE_LIMITS: 'off',
        JOBS: 'on',
        SMTP_URL: smtpUrl,
      });
    };

    // A budget of its own: two service starts and a lease to wait out, 20-40 s.
    it('sends every message the dead instance held, once each, after a lease of seconds', async () => {
      const smtp = await startSmtpServer();
      try {
        const first = await serve(smtp.url);
        running.push(first);
        const hold = smtp.holdNext();
        const emails = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
        // Written together, so that one pass claims all three.
        await database.db.transaction(async (tx) => {
          for (const [i, email] of emails.entries()) {
            await tx.insert(outbox).values({
              id: `mail_crash_${i}_${Date.now()}`,
              dedupeKey: `crash:${email}`,
              kind: 'test',
              toAddress: email,
              subject: `Crash test ${i}`,
              textBody: `Message ${i}`,
              htmlBody: `<p>Message ${i}</p>`,
              nextAttemptAt: new Date(Date.now() - 1000),
              createdAt: new Date(Date.now() - 1000 + i),
            });
          }
        });
        await hold.arrived;
        const claimed = await database.db.select().from(outbox);
        expect(claimed.map((r) => r.attempts)).toEqual([1, 1, 1]);

        const second = await serve(smtp.url);
        running.push(second);
        first.child.kill('SIGKILL');
        const killed = Date.now();
        expect((await first.done).signal).toBe('SIGKILL');
        // The held transaction never got its answer: the server keeps nothing of it.
        hold.release(false);

        const deadline = Date.now() + 120_000;
        while (smtp.messages.length < 3 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 100));
        const waited = Date.now() - killed;
        console.log(`all three sent ${waited} ms after the kill (lease ${MAIL_LEASE_MS} ms)`);
        const ids = smtp.messages.map((m) => parseEml(m.raw).headers['message-id']);
        expect(ids).toHaveLength(3);
        expect(new Set(ids).size).toBe(3);
        expect(smtp.messages.map((m) => m.envelopeTo[0]).sort()).toEqual([...emails].sort());
        for (const email of emails) {
          const [row] = await database.db.select().from(outbox).where(eq(outbox.toAddress, email));
          expect(row).toMatchObject({ status: 'sent', attempts: 2, leaseToken: null });
        }
      } finally {
        await smtp.close();
      }
    }, 300_000);
  },
);
