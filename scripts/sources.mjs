// What a build of the sources is made from, and its fingerprint: every TypeScript and JSON
// file under src/ (the message catalogues are JSON) plus the build recipe. bin/portage.js runs
// a build only when its fingerprint is that of the sources as they are now (docs/startup.md).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const RECIPE = ['scripts/build.mjs', 'scripts/sources.mjs', 'tsconfig.json'];

/** The build's inputs, keyed by path relative to the package root ('/' separators), sorted. */
export function readSources(root) {
  const files = readdirSync(path.join(root, 'src'), { recursive: true })
    .map((f) => `src/${String(f).split(path.sep).join('/')}`)
    .filter((f) => f.endsWith('.ts') || f.endsWith('.json'));
  const sources = new Map();
  for (const file of [...files, ...RECIPE].sort()) {
    sources.set(file, readFileSync(path.join(root, file)));
  }
  return sources;
}

/** A short fingerprint of the inputs: names and contents, so that an edit, an added or a removed file changes it. */
export function fingerprint(sources) {
  const hash = createHash('sha256');
  for (const [file, content] of sources) {
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('base64url').slice(0, 16);
}
