// `portage mcp`: the tool server over stdio, acting for the one user whose token it is given,
// reaching the service over HTTP through the typed client. Stdout carries protocol messages
// only; anything else goes to stderr. The SDK's serveStdio answers both protocol eras: a
// 2025-11-25 client's `initialize` and a 2026-07-28 client's `server/discover`.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { maskCredentials, maskUrl, PortageClient } from '../client/index.ts';
import { createToolServer } from './tools.ts';

export class ToolServerConfigError extends Error {
  override name = 'ToolServerConfigError';
}

/** `portage mcp`: configured only by SERVICE_URL and SERVICE_JWT_TOKEN. */
export async function runToolServer(env: Record<string, string | undefined> = process.env): Promise<void> {
  const missing = ['SERVICE_URL', 'SERVICE_JWT_TOKEN'].filter((k) => !env[k]?.trim());
  if (missing.length) {
    throw new ToolServerConfigError(
      `${missing.join(' and ')} must be set: SERVICE_URL is the service's base URL (e.g. https://portage.example), ` +
        'SERVICE_JWT_TOKEN the signed-in user token (POST /auth/login answers one)',
    );
  }
  const baseUrl = env.SERVICE_URL!.trim();
  const token = env.SERVICE_JWT_TOKEN!.trim();
  if (!URL.canParse(baseUrl) || !/^https?:/.test(baseUrl)) {
    const shown = maskCredentials(maskUrl(baseUrl), [token]);
    throw new ToolServerConfigError(`SERVICE_URL must be an http(s) URL; got "${shown}"`);
  }
  const client = new PortageClient({ baseUrl, token });
  serveStdio(() => createToolServer(client), {
    onerror: (err) => process.stderr.write(client.maskCredentials(`portage mcp: ${err.message}\n`)),
  });
}
