// Prepares, ahead of time, what `portage` would otherwise do at every start (`npm install`
// runs it: the `prepare` script). In dist/ (git-ignored):
// - build/<fingerprint>/: the sources as one ES module bundle with a chunk per lazily
//   loaded part (the tool server, the service's commands); dependencies stay imports of
//   node_modules. bin/portage.js runs the build whose fingerprint is that of the sources as
//   they are, and the sources through tsx otherwise. The invoice renderer's worker thread
//   runs an entry of its own, invoice-render-worker.js (src/modules/invoices/renderer.ts), and so
//   does the file feed's, feed-file-worker.js (src/modules/feeds/file-feed.ts).
// - pglite-initdb/<PGlite version>/: an empty database made by PGlite and closed, that a
//   new data directory starts from instead of running initdb (src/db/index.ts).
// See docs/startup.md.
//
// node scripts/build.mjs   makes what is missing; prints a line for each.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprint, readSources } from './sources.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILDS = path.join(ROOT, 'dist', 'build');
const TEMPLATES = path.join(ROOT, 'dist', 'pglite-initdb');
/** Older builds kept besides the newest: a process started from one may still load its chunks. */
const KEEP = 3;

export async function build() {
  // The bundle is made from this snapshot, never from a second read of the files: what is
  // built is exactly what the fingerprint names, even if a file changes meanwhile.
  const sources = readSources(ROOT);
  const id = fingerprint(sources);
  const outdir = path.join(BUILDS, id);
  if (existsSync(path.join(outdir, 'cli.js'))) return { id, outdir, built: false };

  mkdirSync(BUILDS, { recursive: true });
  const tmp = path.join(BUILDS, `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await bundle(
      sources,
      [
        { in: 'src/cli.ts', out: 'cli' },
        { in: 'src/modules/invoices/render-worker.ts', out: 'invoice-render-worker' },
        { in: 'src/modules/feeds/file-worker.ts', out: 'feed-file-worker' },
      ],
      tmp,
      outdir,
    );
    settle(tmp, outdir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  prune(BUILDS, id, KEEP);
  return { id, outdir, built: true };
}

/**
 * Bundles `entryPoints` (paths relative to the package root, or `{ in, out }` to name the
 * output) from the snapshot into `writeDir`, for running from `outdir` (where
 * `import.meta.url` is mapped from).
 */
export async function bundle(sources, entryPoints, writeDir, outdir = writeDir) {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: entryPoints.map((e) =>
      typeof e === 'string' ? path.join(ROOT, e) : { in: path.join(ROOT, e.in), out: e.out },
    ),
    outdir: writeDir,
    bundle: true,
    // Dynamic imports stay lazy: `portage mcp` loads none of the service's modules.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // Class and function names as in the sources (errors are told apart by name).
    keepNames: true,
    sourcemap: 'linked',
    // What the sources may ask to tell a build from themselves (a worker thread's file).
    define: { PORTAGE_BUNDLE: 'true' },
    logLevel: 'warning',
    plugins: [snapshotPlugin(sources, outdir)],
  });
}

/** The empty database of the installed PGlite version, made once: PGlite runs initdb and closes. */
export async function initdbTemplate() {
  const require = createRequire(import.meta.url);
  const pglitePackage = path.join(
    path.dirname(require.resolve('@electric-sql/pglite')),
    '..',
    'package.json',
  );
  const { version } = JSON.parse(readFileSync(pglitePackage, 'utf8'));
  const dir = path.join(TEMPLATES, version);
  if (existsSync(path.join(dir, 'PG_VERSION'))) return { version, dir, built: false };

  const { PGlite } = await import('@electric-sql/pglite');
  mkdirSync(TEMPLATES, { recursive: true });
  const tmp = path.join(TEMPLATES, `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    const pglite = await PGlite.create(tmp);
    await pglite.close();
    settle(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  prune(TEMPLATES, version, 0);
  return { version, dir, built: true };
}

/** Moves a finished directory into place; if another run got there first, its copy is the same. */
function settle(tmp, dir) {
  try {
    renameSync(tmp, dir);
  } catch (err) {
    if (!['ENOTEMPTY', 'EEXIST'].includes(err.code)) throw err;
  }
}

/**
 * Serves every source file from the snapshot. `import.meta.url` in a source means that
 * source file (migrations are found next to src/db/index.ts, for one): in the bundle it
 * becomes the source file's URL, found relative to the bundle.
 */
function snapshotPlugin(sources, outdir) {
  return {
    name: 'portage-sources',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        const file = path.relative(ROOT, args.path).split(path.sep).join('/');
        const content = sources.get(file);
        if (!content) throw new Error(`${file} is not among the build's inputs (scripts/sources.mjs)`);
        const text = content.toString('utf8');
        if (/import\.meta\.(dirname|filename)/.test(text)) {
          throw new Error(`${file}: use import.meta.url (the build maps it to the source file)`);
        }
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        return {
          contents: text.replaceAll(
            'import.meta.url',
            `new URL(${JSON.stringify(relative)}, import.meta.url).href`,
          ),
          loader: 'ts',
        };
      });
      b.onLoad({ filter: /\.json$/ }, (args) => {
        const file = path.relative(ROOT, args.path).split(path.sep).join('/');
        const content = sources.get(file);
        if (!content) throw new Error(`${file} is not among the build's inputs (scripts/sources.mjs)`);
        return { contents: content.toString('utf8'), loader: 'json' };
      });
    },
  };
}

/** Removes all but the newest `keep` entries of `parent` besides `current`. */
function prune(parent, current, keep) {
  const others = readdirSync(parent, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== current)
    .map((e) => ({ dir: path.join(parent, e.name), mtime: statSync(path.join(parent, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { dir } of others.slice(keep)) rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let started = performance.now();
  const bundle = await build();
  const ms = () => Math.round(performance.now() - started);
  console.log(
    bundle.built
      ? `portage: built dist/build/${bundle.id} in ${ms()} ms`
      : `portage: dist/build/${bundle.id} is up to date`,
  );
  started = performance.now();
  const template = await initdbTemplate();
  console.log(
    template.built
      ? `portage: made dist/pglite-initdb/${template.version} (an empty database for new data directories) in ${ms()} ms`
      : `portage: dist/pglite-initdb/${template.version} is up to date`,
  );
}
