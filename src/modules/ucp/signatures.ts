// Requests a platform signs (docs/ucp.md "Signatures"): RFC 9421 HTTP Message Signatures with a
// key of the platform's profile (`keyid` is a `kid` of its signing_keys; ES256 on P-256, ES384 on
// P-384, the curve saying which), over at least the method, authority and path, and the body's
// RFC 9530 Content-Digest when there is a body, and made within 5 minutes when it says when. A
// request without a signature is taken on its API key alone; one with a signature that does
// not verify is refused.

import { createHash, createPublicKey, verify } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import { text } from '../../contract/i18n.ts';
import type { UcpPlatformProfile } from '../../contract/ucp.ts';

import { UcpFailure } from './errors.ts';

/** What a signature must cover: the request line's parts, and the body's digest when there is one. */
const REQUIRED = ['@method', '@authority', '@path'];
/** How far a signature's `created` may be off our clock. */
const TOLERANCE_S = 60;
/** A signature whose `created` is older is stale (a replayed request); one without `created` is judged by its Idempotency-Key. */
const MAX_AGE_S = 300;

export interface SignedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes as received (undefined: no body). */
  body: Buffer | undefined;
}

/** True when the request carries a signature (and then it was verified); false when it carries none. */
export async function verifyRequestSignature(
  req: SignedRequest,
  profile: UcpPlatformProfile,
): Promise<boolean> {
  const signature = req.headers.signature;
  const input = req.headers['signature-input'];
  if (signature === undefined && input === undefined) return false;
  if (typeof signature !== 'string' || typeof input !== 'string') {
    throw new UcpFailure(401, 'signature_invalid', text('ucp.error.signatureHeaders'));
  }
  if (req.body !== undefined && req.body.length > 0) {
    const digest = req.headers['content-digest'];
    const expected = `sha-256=:${createHash('sha256').update(req.body).digest('base64')}:`;
    if (typeof digest !== 'string' || !digest.split(',').some((d) => d.trim() === expected)) {
      throw new UcpFailure(400, 'digest_mismatch', text('ucp.error.digestMismatch'));
    }
  }
  let unknownKey = false;
  let verified: boolean | null;
  try {
    verified = await httpbis.verifyMessage(
      {
        keyLookup: async (params) => {
          const jwk = (profile.signing_keys ?? []).find((k) => k.kid === params.keyid);
          if (!jwk) {
            unknownKey = true;
            return null;
          }
          const key = createPublicKey({ key: jwk as never, format: 'jwk' });
          const hash = jwk.crv === 'P-384' ? 'sha384' : 'sha256';
          return {
            id: jwk.kid,
            verify: async (data: Buffer, sig: Buffer) =>
              verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, sig),
          };
        },
        requiredFields: req.body?.length ? [...REQUIRED, 'content-digest'] : REQUIRED,
        tolerance: TOLERANCE_S,
        maxAge: MAX_AGE_S,
      },
      { method: req.method, url: req.url, headers: req.headers as Record<string, string> },
    );
  } catch (err) {
    throw new UcpFailure(
      401,
      'signature_invalid',
      text('ucp.error.signatureRefused', {
        reason: err instanceof Error ? err.message.slice(0, 100) : 'refused',
      }),
    );
  }
  if (unknownKey) {
    throw new UcpFailure(401, 'key_not_found', text('ucp.error.unknownKeyId'));
  }
  if (verified !== true) throw new UcpFailure(401, 'signature_invalid', text('ucp.error.signatureInvalid'));
  return true;
}
