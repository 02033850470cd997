// OAuth clients (agents): registered dynamically (RFC 7591, public clients only), or named by
// the URL of their client ID metadata document (metadata-documents.ts). The rules of what a
// client may declare live here, shared by both ways in.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { eq } from 'drizzle-orm';
import { AGENT_SCOPES } from '../../contract/scopes.ts';
import type { RequestContext } from '../context.ts';
import { oauthClients } from './tables.ts';

/** An error answered in the RFC 6749/7591 form `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly statusCode = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export interface Client {
  clientId: string;
  clientName: string | undefined;
  redirectUris: string[];
  logoUri: string | undefined;
  clientUri: string | undefined;
}

/** Client ID metadata documents (metadata-documents.ts fetches them). */
export interface MetadataDocuments {
  /** True when `clientId` has the shape of a metadata document's URL. */
  isDocumentUrl(clientId: string): boolean;
  /** The client the document at `url` describes; throws OAuthError invalid_client when it cannot be used. */
  get(url: string): Promise<Client>;
}

export const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 100;
const MAX_SCOPE_LENGTH = 200;

/** A loopback host: the only place a redirect may use plain http (RFC 8252 section 7.3). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why a redirect URI is not acceptable, if it is not: https, or http on a loopback address; no fragment. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri || uri.length > MAX_URI_LENGTH) {
    return `each redirect URI must be a string of at most ${MAX_URI_LENGTH} characters`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${short(uri)}" is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `"${short(uri)}" must not have a fragment`;
  if (url.username || url.password) return `"${short(uri)}" must not hold credentials`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `"${short(uri)}" must use https, or http on a loopback address (127.0.0.1, [::1], localhost)`;
}

/** An https URL of at most 2000 characters (logo_uri, client_uri), or a problem. */
function httpsUriProblem(field: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length > MAX_URI_LENGTH)
    return `${field} must be a URL of at most ${MAX_URI_LENGTH} characters`;
  try {
    if (new URL(v).protocol === 'https:') return undefined;
  } catch {}
  return `${field} must be an https URL`;
}

/**
 * Checks client metadata (a registration's body, or a metadata document) and answers the
 * client; throws OAuthError invalid_redirect_uri / invalid_client_metadata.
 */
export function clientFromMetadata(clientId: string, body: unknown): Client {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_client_metadata', 'The client metadata must be a JSON object');
  }
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError(
      'invalid_redirect_uri',
      `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} redirect URIs`,
    );
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const metadata = (description: string) => new OAuthError('invalid_client_metadata', description);
  const method = m.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw metadata(
      'token_endpoint_auth_method must be "none": Portage registers public clients only (PKCE, no secret)',
    );
  }
  const grants = m.grant_types;
  if (
    grants !== undefined &&
    (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
  ) {
    throw metadata('grant_types may hold only "authorization_code" and "refresh_token"');
  }
  const responses = m.response_types;
  if (responses !== undefined && (!Array.isArray(responses) || responses.some((r) => r !== 'code'))) {
    throw metadata('response_types may hold only "code"');
  }
  const name = m.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME_LENGTH)) {
    throw metadata(`client_name must be a string of at most ${MAX_NAME_LENGTH} characters`);
  }
  const scope = m.scope;
  if (
    scope !== undefined &&
    (typeof scope !== 'string' ||
      scope.length > MAX_SCOPE_LENGTH ||
      scope.split(' ').some((s) => s && !(AGENT_SCOPES as readonly string[]).includes(s)))
  ) {
    throw metadata(`scope may hold only ${AGENT_SCOPES.join(', ')}`);
  }
  const problem = httpsUriProblem('logo_uri', m.logo_uri) ?? httpsUriProblem('client_uri', m.client_uri);
  if (problem) throw metadata(problem);
  return {
    clientId,
    clientName: typeof name === 'string' && name.trim() ? name.trim() : undefined,
    redirectUris: uris as string[],
    logoUri: (m.logo_uri as string | undefined) ?? undefined,
    clientUri: (m.client_uri as string | undefined) ?? undefined,
  };
}

/** Registers a public client (RFC 7591) and answers its registration (201). */
export async function registerClient(ctx: RequestContext, body: unknown) {
  const clientId = `client_${randomBytes(16).toString('base64url')}`;
  const client = clientFromMetadata(clientId, body);
  const scope = (body as { scope?: string }).scope || undefined;
  const now = ctx.now();
  await ctx.db.insert(oauthClients).values({
    id: clientId,
    clientName: client.clientName ?? null,
    redirectUris: client.redirectUris,
    logoUri: client.logoUri ?? null,
    clientUri: client.clientUri ?? null,
    scope: scope ?? null,
    createdAt: now,
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(client.clientName ? { client_name: client.clientName } : {}),
    ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    ...(client.clientUri ? { client_uri: client.clientUri } : {}),
    ...(scope ? { scope } : {}),
  };
}

/**
 * The client a `client_id` names: a registered one, or the metadata document at that URL.
 * Undefined for an unknown id; throws OAuthError when a metadata document cannot be used.
 */
export async function findClient(
  ctx: RequestContext,
  documents: MetadataDocuments,
  clientId: string,
): Promise<Client | undefined> {
  if (documents.isDocumentUrl(clientId)) return documents.get(clientId);
  if (!/^client_[A-Za-z0-9_-]{1,64}$/.test(clientId)) return undefined;
  const [row] = await ctx.db.select().from(oauthClients).where(eq(oauthClients.id, clientId));
  if (!row) return undefined;
  return {
    clientId: row.id,
    clientName: row.clientName ?? undefined,
    redirectUris: row.redirectUris,
    logoUri: row.logoUri ?? undefined,
    clientUri: row.clientUri ?? undefined,
  };
}

function short(v: string): string {
  return v.length > 80 ? `${v.slice(0, 77)}...` : v;
}
