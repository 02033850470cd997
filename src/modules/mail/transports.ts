// How an email leaves: SMTP through nodemailer when SMTP_URL is set, otherwise an RFC 5322 .eml
// file under $DATA_DIR/mail/ (docs/api.md "Mail"). Errors leave without the
// SMTP URL's credentials: their text is stored in the outbox and logged.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { MailConfig } from '../../config.ts';

export interface OutgoingMail {
  /** The outbox row's id and creation time: they name the .eml file (the same row, the same file). */
  id: string;
  createdAt: Date;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<…@…>`, the same on every attempt of one row, so that a receiver can spot a repeat. */
  messageId: string;
}

export interface MailTransport {
  readonly kind: 'smtp' | 'files';
  /** Resolves once the server accepted the message (or the file is in place); throws a masked Error. */
  send(message: OutgoingMail): Promise<void>;
  close(): void;
}

export interface MailTransportOptions {
  /** SMTP connection, greeting and socket-inactivity timeouts (ms); 10 s by default. */
  timeoutMs?: number;
}

const SMTP_TIMEOUT_MS = 10_000;
/** The longest error text kept: the outbox's lastError and the log line. */
const MAX_ERROR = 300;

export function createMailTransport(
  mail: MailConfig,
  dataDir: string,
  options: MailTransportOptions = {},
): MailTransport {
  return mail.smtpUrl
    ? smtpTransport(mail.smtpUrl, options.timeoutMs ?? SMTP_TIMEOUT_MS)
    : fileTransport(path.join(dataDir, 'mail'));
}

function smtpTransport(smtpUrl: string, timeoutMs: number): MailTransport {
  const url = new URL(smtpUrl);
  const secrets = [url.username, url.password]
    .filter((s) => s.length >= 3)
    .flatMap((s) => [s, safeDecode(s)])
    .sort((a, b) => b.length - a.length);
  // One connection per message (no pool): nothing to go stale between passes, and a stuck
  // server costs one send its timeouts, never the worker.
  url.searchParams.delete('pool');
  const transporter = nodemailer.createTransport({
    url: url.href,
    pool: false,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    logger: false,
    debug: false,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    kind: 'smtp',
    async send(m) {
      try {
        await transporter.sendMail(composed(m));
      } catch (err) {
        throw new Error(describeError(err, secrets));
      }
    },
    close() {
      transporter.close();
    },
  };
}

function fileTransport(dir: string): MailTransport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  let made = false;
  return {
    kind: 'files',
    async send(m) {
      try {
        const info = await composer.sendMail(composed(m));
        if (!made) {
          await mkdir(dir, { recursive: true, mode: 0o700 });
          await chmod(dir, 0o700);
          made = true;
        }
        // `:` is not allowed in file names on every system: 2026-11-21T13-05-00.000Z-mail_….eml
        const name = `${m.createdAt.toISOString().replaceAll(':', '-')}-${m.id.replace(/[^\w.-]/g, '_')}.eml`;
        const tmp = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
        try {
          await writeFile(tmp, info.message as Buffer, { mode: 0o600, flag: 'wx' });
          // Whole or not at all: a reader never sees half a message; a repeat replaces the file.
          await rename(tmp, path.join(dir, name));
        } catch (err) {
          await rm(tmp, { force: true });
          throw err;
        }
      } catch (err) {
        made = false;
        throw new Error(describeError(err, []));
      }
    },
    close() {},
  };
}

/** A short, single-line description of a send failure, with credentials masked. */
export function describeError(err: unknown, secrets: readonly string[]): string {
  const e = (err ?? {}) as { message?: unknown; code?: unknown; responseCode?: unknown };
  const parts: string[] = [];
  if (typeof e.code === 'string') parts.push(e.code);
  if (typeof e.responseCode === 'number') parts.push(String(e.responseCode));
  let message = typeof e.message === 'string' && e.message ? e.message : String(err);
  for (const secret of secrets) message = message.replaceAll(secret, '[redacted]');
  message = message.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>]*@/gi, '$1[redacted]@');
  const text = `${parts.length ? `${parts.join(' ')}: ` : ''}${message}`.replace(/\s+/g, ' ').trim();
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The message as nodemailer composes it, the same for both transports. */
function composed(m: OutgoingMail) {
  return {
    from: m.from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    messageId: m.messageId,
    date: m.createdAt,
  };
}
