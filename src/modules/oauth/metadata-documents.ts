// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): a `client_id`
// that is an https URL names a JSON document of client metadata, fetched from that URL. The
// fetch is an outbound request chosen by a stranger, so it is fenced (src/http/outbound.ts,
// docs/api.md "OAuth authorization server"); answers cached (LRU, 1,000 entries, max-age honoured
// between 1 and 10 minutes).
import { DOCUMENT_CACHE_LIMITS, DocumentCache, fetchDocument } from '../../http/outbound.ts';
import {
  type Client,
  clientFromMetadata,
  isLoopbackHost,
  type MetadataDocuments,
  OAuthError,
} from './clients.ts';

const MAX_URL_LENGTH = 2000;

const unusable = (why: string) => new OAuthError('invalid_client', `The client ID metadata document ${why}`);

export function createMetadataDocuments(opts: { development: boolean }): MetadataDocuments {
  const cache = new DocumentCache<Client>(DOCUMENT_CACHE_LIMITS);

  function isDocumentUrl(clientId: string): boolean {
    if (clientId.length > MAX_URL_LENGTH) return false;
    if (!clientId.startsWith('https://') && !(opts.development && clientId.startsWith('http://')))
      return false;
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return false;
    }
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return false;
    // The draft: a path, no fragment, no credentials, no dot segments.
    const path = clientId.slice(url.protocol.length + 2).replace(/^[^/?#]*/, '');
    return (
      url.pathname !== '/' &&
      !clientId.includes('#') &&
      !url.username &&
      !url.password &&
      !path
        .split(/[?]/)[0]!
        .split('/')
        .some((s) => s === '.' || s === '..' || /^(%2e|\.){1,2}$/i.test(s))
    );
  }

  async function get(url: string): Promise<Client> {
    const hit = cache.get(url);
    if (hit) return hit;
    const { body, maxAge } = await fetchDocument(url, opts.development, unusable);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new OAuthError('invalid_client', 'The client ID metadata document is not JSON');
    }
    if ((json as { client_id?: unknown } | null)?.client_id !== url) {
      throw new OAuthError(
        'invalid_client',
        'The client ID metadata document must hold a client_id equal to its URL',
      );
    }
    let client: Client;
    try {
      client = clientFromMetadata(url, json);
    } catch (err) {
      if (err instanceof OAuthError)
        throw new OAuthError('invalid_client', `The client ID metadata document: ${err.description}`);
      throw err;
    }
    cache.set(url, client, maxAge);
    return client;
  }

  return { isDocumentUrl, get };
}
