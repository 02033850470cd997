#!/usr/bin/env node
// Entry point of the `portage` command. It runs the build of the sources made ahead of time
// (scripts/build.mjs, which `npm install` runs) when that build is of the sources exactly as
// they are now (same fingerprint of every file's content), and the TypeScript sources through
// tsx's loader otherwise: an edited source is never run stale, and a checkout without a build
// still runs. See docs/startup.md.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fingerprint, readSources } from '../scripts/sources.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = fileURLToPath(
  new URL(`../dist/build/${fingerprint(readSources(root))}/cli.js`, import.meta.url),
);

if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
