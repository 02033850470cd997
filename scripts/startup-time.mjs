// Measures the time from spawning a command to the first 200 on /health, and the CPU time
// its processes used until then.
// node scripts/startup-time.mjs [--fresh] [--runs 3] [--] command args...
// (default command: npm start). Each run gets its own port; --fresh a new data directory
// per run, otherwise one directory prepared by a first, unmeasured start.
// node scripts/startup-time.mjs --mcp [--runs 5]: the time from spawning `portage mcp` to
// its answer to `initialize`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const fresh = args.includes('--fresh');
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const dashes = args.indexOf('--');
const command = dashes >= 0 ? args.slice(dashes + 1) : ['npm', 'start'];

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const healthy = (port) =>
  new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
  });

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (user + system, ms) used so far by the processes of a process group. */
function groupCpuMs(pgid) {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[2] is the process group; [11..14] utime, stime, cutime, cstime.
      if (Number(fields[2]) !== pgid) continue;
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {}
  }
  return ticks * TICK_MS;
}

async function once(dataDir) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(command[0], command.slice(1), {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  let exited = false;
  const done = new Promise((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  for (;;) {
    if (exited) throw new Error('the command exited before answering');
    if (await healthy(port)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = groupCpuMs(child.pid);
  process.kill(-child.pid, 'SIGTERM');
  await done;
  return { ms, cpu };
}

/** `portage mcp`: spawned, sent `initialize`, timed to its first line on stdout. */
async function mcpOnce() {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['bin/portage.js', 'mcp'], {
    env: { ...process.env, SERVICE_URL: 'http://127.0.0.1:9', SERVICE_JWT_TOKEN: 'unused' },
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'timer', version: '1' },
      },
    })}\n`,
  );
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = groupCpuMs(child.pid);
  const done = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.end();
  process.kill(-child.pid, 'SIGTERM');
  await done;
  return { ms, cpu };
}

if (args.includes('--mcp')) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await mcpOnce());
  report('`portage mcp` to its answer to initialize', results);
  process.exit(0);
}

function report(title, results) {
  const fmt = (ms) => (ms / 1000).toFixed(2);
  const summary = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${values.map(fmt).join(' ')} s; median ${fmt(sorted[Math.floor(values.length / 2)])} s, range ${fmt(sorted[0])}-${fmt(sorted.at(-1))} s`;
  };
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(`${title}, load ${load}`);
  console.log(`  time:     ${summary(results.map((r) => r.ms))}`);
  console.log(`  CPU used: ${summary(results.map((r) => r.cpu))}`);
}

const base = mkdtempSync(path.join(os.tmpdir(), 'portage-startup-'));
try {
  const existing = path.join(base, 'existing');
  if (!fresh) await once(existing);
  const results = [];
  for (let i = 0; i < runs; i++) {
    results.push(await once(fresh ? path.join(base, `fresh-${i}`) : existing));
  }
  report(
    `${fresh ? 'fresh' : 'existing'} data directory, \`${command.join(' ')}\` to the first 200 on /health`,
    results,
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}
