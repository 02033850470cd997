// A test host for MCP Apps views, in headless Chromium: the extension's own host side
// (AppBridge and PostMessageTransport of @modelcontextprotocol/ext-apps/app-bridge, bundled for
// the browser by esbuild) in a page served from a local server, as the extension's basic-host
// example does. The view goes into a sandboxed frame (scripts only, an opaque origin) with the
// CSP its resource declares, written as the spec's policy; the view's tool calls come back to
// the test through an exposed function, which refuses a tool the model's list hides from apps.
// Two image servers stand for an origin the view allows and one it does not: each counts the
// requests that reached it.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Frame, Page } from 'playwright-core';

const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title>
<style>body{margin:0;font-family:sans-serif} iframe{border:1px solid #ccc;width:760px;height:120px;display:block}</style>
</head><body><iframe id="view" title="view"></iframe><script src="/bridge.js"></script><script>
const { AppBridge, PostMessageTransport } = McpAppBridge;
window.hostLog = [];
// The spec's policy for a view (specification/2026-01-26, "Security"): its declared domains only.
const policy = (c = {}) => {
  const r = (c.resourceDomains || []).join(' ');
  const k = (c.connectDomains || []).join(' ');
  return ["default-src 'none'", "script-src 'unsafe-inline' " + r, "style-src 'unsafe-inline' " + r,
    'img-src data: ' + r, 'font-src ' + r, 'media-src data: ' + r, 'connect-src ' + k,
    "frame-src 'none'", "object-src 'none'", "base-uri 'none'"].map((s) => s.trim()).join('; ');
};
window.mountView = async ({ html, csp, toolInput, toolResult, hostContext }) => {
  const frame = document.getElementById('view');
  frame.setAttribute('sandbox', 'allow-scripts');
  const bridge = new AppBridge(null, { name: 'portage-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, logging: {} }, { hostContext });
  bridge.oncalltool = (params) => { hostLog.push(['tools/call', params.name, params.arguments]); return window.hostCallTool(params.name, params.arguments || {}); };
  bridge.onopenlink = async ({ url }) => { hostLog.push(['open-link', url]); return {}; };
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + policy(csp).replace(/"/g, '&quot;') + '">';
  frame.srcdoc = html.replace(/<head>/i, '<head>' + meta);
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput || {} });
  await bridge.sendToolResult(toolResult);
  window.bridge = bridge;
};
</script></body></html>`;

/** A 1×1 PNG, the colour of birch bark. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGM4uXMWAARrAh1PqPReAAAAAElFTkSuQmCC',
  'base64',
);

async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface AppsHost {
  /** The host page's address. */
  url: string;
  /** An image origin the views are told to allow (VIEW_IMAGE_ORIGINS), and one they are not. */
  images: { allowed: string; unlisted: string };
  /** Requests that reached each image server. */
  imageRequests: { allowed: number; unlisted: number };
  close(): Promise<void>;
}

export async function startAppsHost(): Promise<AppsHost> {
  const bundled = await build({
    stdin: {
      contents:
        "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';",
      resolveDir: process.cwd(),
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    globalName: 'McpAppBridge',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const bridge = bundled.outputFiles[0]!.text;
  const counts = { allowed: 0, unlisted: 0 };
  const page = await serve((req, res) => {
    if (req.url === '/bridge.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(bridge);
    } else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOST_PAGE);
  });
  const image = (which: keyof typeof counts) =>
    serve((_req, res) => {
      counts[which]++;
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PIXEL);
    });
  const allowed = await image('allowed');
  const unlisted = await image('unlisted');
  return {
    url: `${page.origin}/`,
    images: { allowed: allowed.origin, unlisted: unlisted.origin },
    imageRequests: counts,
    close: async () => {
      for (const s of [page, allowed, unlisted]) {
        s.server.closeAllConnections();
        s.server.close();
      }
    },
  };
}

export interface ViewResource {
  html: string;
  csp?: { resourceDomains?: string[]; connectDomains?: string[] };
}

/**
 * Shows a view in the host page as a host would after a tool call: the view's document, the
 * call's input and result, the host's context. Answers the view's frame.
 */
export async function mountView(
  page: Page,
  host: AppsHost,
  view: ViewResource & { toolInput?: object; toolResult: object; hostContext?: object },
): Promise<Frame> {
  await page.goto(host.url);
  await page.evaluate((v) => (window as unknown as { mountView(v: object): Promise<void> }).mountView(v), {
    ...view,
    hostContext: view.hostContext ?? { theme: 'light', displayMode: 'inline', locale: 'en-CA' },
  });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error('the view has no frame');
  return frame;
}

/** What the host was asked by the view: tool calls and links opened, in order. */
export const hostLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { hostLog: unknown[][] }).hostLog);
