// Token signing keys. Development generates one RSA key on first start and keeps it in the
// data directory; staging and production are given theirs (config refuses to start without).
import { createPrivateKey, createPublicKey, generateKeyPairSync, hkdfSync } from 'node:crypto';
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
  /**
   * A 32-byte secret for one purpose (e.g. signing a cookie), derived from the signing key
   * with HKDF: every instance holding the key derives the same one, and it rotates with it.
   */
  derive(purpose: string): Buffer;
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
  const privateDer = createPrivateKey(privatePem).export({ type: 'pkcs8', format: 'der' });
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', privateDer, 'portage', purpose, 32));
  return { kid, signingKey, verifyKeys, jwks, derive };
}
