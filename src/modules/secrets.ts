// Secrets the service hands out once and keeps only as a hash: OAuth codes and tokens, email
// links, platform keys. 256 random bits each, so a plain SHA-256 is enough to store them.
import { createHash, randomBytes } from 'node:crypto';

/** 32 bytes of the CSPRNG, base64url (never the ids' pool). */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** What is stored of a secret: its SHA-256, hex. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
