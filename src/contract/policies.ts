// The platform's policies (terms, privacy, returns): public pages, written by an admin in the desk.
import { z } from 'zod';
import { LOCALES } from './i18n.ts';

export const POLICY_KINDS = ['terms', 'privacy', 'returns'] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

/** The longest text a policy may hold, in characters. */
export const POLICY_MAX_CHARS = 20_000;

export const savePolicyBody = z.strictObject({
  kind: z.enum(POLICY_KINDS),
  locale: z.enum(LOCALES),
  /** Empty: the service's own text again. */
  body: z
    .string()
    .transform((s) => s.replace(/\r\n?/g, '\n').trim())
    .pipe(z.string().max(POLICY_MAX_CHARS)),
});
