// The file feed's worker module when the service runs from its TypeScript sources (bin/portage.js
// without a build, the tests): tsx's loader registered in this thread, then file-worker.ts. A
// build runs its bundled feed-file-worker.js instead (scripts/build.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./file-worker.ts');
