// The pages' stylesheet lives with the frames (src/views/stylesheet.ts); this name stays for the
// page sections that import it here.
export { STYLESHEET, STYLESHEET_PATH } from '../views/stylesheet.ts';
