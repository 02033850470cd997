// Token signing keys. Development generates one RSA key on first start and keeps it in the
// data directory; staging and production are given theirs (config refuses to start without).
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, importPKCS8, importSPKI, type JWK } from 'jose';

type Key = Awaited<ReturnType<typeof importSPKI>>;

export interface KeyRing {
  kid: string;
  signingKey: Key;
  /** Public keys by kid: the current one and any retired ones still accepted. */
  verifyKeys: Map<string, Key>;
  jwks: PublishedJwk[];
}

export type PublishedJwk = JWK & { kty: string; kid: string; alg: string; use: string };

export function developmentKeyPem(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-signing-key.pem');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  mkdirSync(dataDir, { recursive: true });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
  return pem;
}

export async function loadKeyRing(privatePem: string, previousPublicPems: string[] = []): Promise<KeyRing> {
  const signingKey = await importPKCS8(privatePem, 'RS256');
  const publicPem = createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }).toString();
  const verifyKeys = new Map<string, Key>();
  const jwks: PublishedJwk[] = [];
  let kid = '';
  for (const pem of [publicPem, ...previousPublicPems]) {
    const key = await importSPKI(pem, 'RS256', { extractable: true });
    const jwk = await exportJWK(key);
    const thumbprint = await calculateJwkThumbprint(jwk);
    kid ||= thumbprint;
    if (verifyKeys.has(thumbprint)) continue;
    verifyKeys.set(thumbprint, key);
    jwks.push({ ...jwk, kty: 'RSA', kid: thumbprint, alg: 'RS256', use: 'sig' });
  }
  return { kid, signingKey, verifyKeys, jwks };
}
