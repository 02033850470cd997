// The renderer's worker module when the service runs from its TypeScript sources (bin/portage.js
// without a build, the tests): tsx's loader registered in this thread, as bin/portage.js does in
// the main one, then render-worker.ts. A build runs its bundled invoice-render-worker.js instead.
import { register } from 'tsx/esm/api';

register();
export default (await import('./render-worker.ts')).default;
