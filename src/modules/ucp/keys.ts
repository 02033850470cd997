// UCP's signing key (docs/ucp.md "Signing"): an EC P-256 key of its own, apart from the token
// keys, published as JWKs in /.well-known/ucp's `signing_keys` and used to sign order webhooks
// (RFC 9421, ES256). Development generates one on first start and keeps it in the data
// directory; staging and production are given theirs (config refuses to start without).
// Rotation: sign with the new key and list the old public key in UCP_PREVIOUS_PUBLIC_KEYS for
// at least 7 days (the spec's overlap), so receivers holding a cached profile still verify.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import type { UcpSigningKey } from '../../contract/ucp.ts';

export interface UcpKeyRing {
  /** The kid of the key that signs (its JWK thumbprint). */
  kid: string;
  privateKey: KeyObject;
  /** What the profile publishes: the signing key's public JWK first, then the retired ones. */
  jwks: UcpSigningKey[];
}

export function developmentUcpKeyPem(dataDir: string): string {
  const file = path.join(dataDir, 'ucp-signing-key.pem');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  mkdirSync(dataDir, { recursive: true });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
  return pem;
}

export async function loadUcpKeyRing(
  privatePem: string,
  previousPublicPems: string[] = [],
): Promise<UcpKeyRing> {
  const privateKey = createPrivateKey(privatePem);
  const jwks: UcpSigningKey[] = [];
  const publics = [createPublicKey(privateKey), ...previousPublicPems.map((pem) => createPublicKey(pem))];
  for (const key of publics) {
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') continue;
    const jwk = await exportJWK(key);
    const kid = await calculateJwkThumbprint(jwk);
    if (jwks.some((k) => k.kid === kid)) continue;
    jwks.push({ kid, kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y!, use: 'sig', alg: 'ES256' });
  }
  return { kid: jwks[0]!.kid, privateKey, jwks };
}
