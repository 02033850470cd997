// The README's "A first purchase", run as written: seed, `npm start &` on a PORT of its own, the
// curl calls, on the embedded database in a data directory of the test's own.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { finished } from './helpers/process.ts';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-readme-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The README's first bash block under `heading`. */
function block(heading: string): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`## ${heading}`));
  const match = /```bash\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error(`no bash block under ${heading}`);
  return match[1]!;
}

/**
 * Runs `script` in bash from the project's root, in a process group of its own. When bash exits,
 * what it left in the background (the README's `npm start &`) is stopped, and its output read to
 * the end.
 */
async function bash(script: string, env: Record<string, string>) {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: root,
    detached: true,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = finished(child);
  const [code] = (await once(child, 'exit')) as [number | null];
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // nothing was left running
  }
  return { ...(await output), code };
}

/** The eml files the mail job has written, once there are `n`. */
async function mails(n: number): Promise<string[]> {
  const dir = path.join(dataDir, 'mail');
  for (let i = 0; i < 600; i++) {
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    } catch {
      // not made yet
    }
    if (files.length >= n) return files.map((f) => readFileSync(path.join(dir, f), 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${n} emails in ${dir}`);
}

describe('the README', () => {
  it("makes a first purchase as written, on the PORT given, with one host in the answers and the emails' links", async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const script = block('A first purchase');
    const [seedLine, ...rest] = script.split('\n');
    expect(seedLine).toMatch(/^npm run portage -- seed/);
    const seeded = await bash(seedLine!, {});
    expect(seeded.code, seeded.stderr).toBe(0);
    const password = (role: string) =>
      new RegExp(`^${role}\\s+${role}@portage\\.test\\s+password: (\\S+)$`, 'm').exec(seeded.stdout)![1]!;
    const purchase = rest
      .join('\n')
      .replace('ADMIN-PASSWORD', password('admin'))
      .replace('SELLER-PASSWORD', password('seller'))
      .replace('BUYER-PASSWORD', password('buyer'));
    const out = await bash(purchase, { PORT: port });
    expect(out.code, out.stderr + out.stdout).toBe(0);

    // The service says where it is once, and logs no request into the README's terminal.
    expect(out.stdout).toContain(
      `public URL http://localhost:${port} (LOG_LEVEL=warn; LOG_LEVEL=info logs each request)`,
    );
    expect(out.stdout).not.toContain('"reqId"');
    expect(out.stdout).toMatch(/"paid":true/);
    expect(out.stdout).toMatch(/"status":"confirmed"/);
    // What was bought is a variant, named in the cart's lines.
    expect(out.stdout).toContain('"title":"Canoe paddle, Cedar"');
    // The search suggested for the seeded catalog answers (it needs the token it is given).
    const search = out.stdout.split('\n').find((l) => l.startsWith('{"results":'));
    expect(search).toBeDefined();
    expect(JSON.parse(search!).results.length).toBeGreaterThan(0);
    expect(search!.toLowerCase()).toContain('paddle');

    // The order email links the host the README browses: http://localhost:PORT.
    const [mail] = await mails(1);
    const links = [
      ...mail!
        .replaceAll('=\r\n', '')
        .replaceAll('=\n', '')
        .matchAll(/https?:\/\/[^\s"'<>]+/g),
    ].map((m) => m[0]);
    const own = links.filter((l) => !l.startsWith('http://www.w3.org/'));
    expect(own.length).toBeGreaterThan(0);
    for (const link of own) expect(link.startsWith(`http://localhost:${port}/`), link).toBe(true);
  }, 400_000);
});
