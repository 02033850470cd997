// A local SMTP server speaking the real protocol (smtp-server): it collects the messages it
// accepts and can refuse the next N transactions with a 4xx/5xx answer, or hold one open.
// Also a parser of the messages nodemailer writes (headers, text and HTML parts), since
// mailparser is not available.

import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The signed-in user, if the client signed in. */
  user: string | undefined;
  raw: string;
}

export interface TestSmtpServer {
  /** smtp://user:password@127.0.0.1:port */
  url: string;
  port: number;
  username: string;
  password: string;
  /** Accepted messages, in order. */
  messages: ReceivedMail[];
  /** Every DATA transaction, accepted or refused. */
  transactions: number;
  /** Refuses the next `n` transactions with `code` (451: try again later; 550: rejected). */
  failNext(n: number, code?: number): void;
  /** Holds the next transaction's answer until released (accepted or refused with 451). */
  holdNext(): { arrived: Promise<void>; release(accept: boolean): void };
  close(): Promise<void>;
}

export async function startSmtpServer(
  opts: { failFirst?: number; failCode?: number } = {},
): Promise<TestSmtpServer> {
  const username = 'portage-mailer';
  const password = 'sm7p-Secret-Pa55';
  let failing = opts.failFirst ?? 0;
  let failCode = opts.failCode ?? 451;
  let held: { arrived: () => void; decided: Promise<boolean> } | undefined;
  const state = { transactions: 0 };
  const messages: ReceivedMail[] = [];

  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === username && auth.password === password) return callback(null, { user: username });
      const err = Object.assign(new Error('Authentication failed'), { responseCode: 535 });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        state.transactions++;
        if (failing > 0) {
          failing--;
          const code = failCode;
          const text = code >= 500 ? 'Message rejected' : 'Try again later';
          return callback(Object.assign(new Error(text), { responseCode: code }));
        }
        const hold = held;
        held = undefined;
        if (hold) {
          hold.arrived();
          if (!(await hold.decided)) {
            return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          }
        }
        messages.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          user: session.user,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${username}:${password}@127.0.0.1:${port}`,
    port,
    username,
    password,
    messages,
    get transactions() {
      return state.transactions;
    },
    failNext(n, code = 451) {
      failing = n;
      failCode = code;
    },
    holdNext() {
      let arrived!: () => void;
      let decide!: (accept: boolean) => void;
      const arrivedP = new Promise<void>((r) => {
        arrived = r;
      });
      held = { arrived, decided: new Promise<boolean>((r) => (decide = r)) };
      return { arrived: arrivedP, release: decide };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A server that accepts connections and never says a word (a stuck mail server). */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface ParsedMail {
  /** Header names in lower case; values unfolded and with encoded words decoded. */
  headers: Record<string, string>;
  text: string | undefined;
  html: string | undefined;
}

/** Parses an RFC 5322 message as nodemailer writes it: single part or multipart/alternative. */
export function parseEml(raw: string): ParsedMail {
  const { headers, body } = splitPart(raw);
  const out: ParsedMail = { headers, text: undefined, html: undefined };
  const visit = (h: Record<string, string>, b: string) => {
    const type = (h['content-type'] ?? 'text/plain').toLowerCase();
    const boundary = /boundary="?([^";]+)"?/i.exec(h['content-type'] ?? '')?.[1];
    if (type.startsWith('multipart/') && boundary) {
      const parts = b.split(`--${boundary}`).slice(1);
      for (const part of parts) {
        if (part.startsWith('--')) break;
        const p = splitPart(part.replace(/^\r?\n/, ''));
        visit(p.headers, p.body);
      }
      return;
    }
    const decoded = decodeBody(b, h['content-transfer-encoding'] ?? '7bit');
    if (type.startsWith('text/html')) out.html = decoded;
    else if (type.startsWith('text/plain')) out.text = decoded;
  };
  visit(headers, body);
  return out;
}

function splitPart(raw: string): { headers: Record<string, string>; body: string } {
  const text = raw.replace(/\r\n/g, '\n');
  const end = text.indexOf('\n\n');
  const head = end === -1 ? text : text.slice(0, end);
  const body = end === -1 ? '' : text.slice(end + 2);
  const headers: Record<string, string> = {};
  for (const h of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = h.indexOf(':');
    if (colon > 0) headers[h.slice(0, colon).trim().toLowerCase()] = decodeWords(h.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string): string {
  const e = encoding.toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') return qp(body);
  return body.replace(/\n$/, '');
}

function qp(s: string): string {
  // Literal `%` first, then each =XX as %XX: decodeURIComponent reads the bytes as UTF-8.
  const escaped = s
    .replace(/=\n/g, '')
    .replace(/\n$/, '')
    .replaceAll('%', '%25')
    .replace(/=([0-9A-F]{2})/gi, '%$1');
  return decodeURIComponent(escaped);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`). */
function decodeWords(s: string): string {
  return s
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : qp(data.replace(/_/g, ' ')),
    );
}
