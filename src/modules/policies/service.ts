// The platform's policies: the admin's text of each policy in each language, or the service's own
// (./texts.ts) where the admin wrote none. Saving an empty text goes back to the service's own.
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { forbidden } from '../../contract/errors.ts';
import { LOCALES, type Locale } from '../../contract/i18n.ts';
import { POLICY_KINDS, type PolicyKind, type savePolicyBody } from '../../contract/policies.ts';
import { recordAdminAction } from '../audit/service.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { sitePolicies } from './tables.ts';
import { defaultPolicy } from './texts.ts';

export interface Policy {
  kind: PolicyKind;
  locale: Locale;
  body: string;
  /** When the admin last wrote it; undefined for the service's own text. */
  updatedAt?: Date;
}

/** One policy in one language, as a visitor reads it. */
export async function readPolicy(
  ctx: RequestContext,
  kind: PolicyKind,
  locale: Locale,
  returnWindowDays: number,
): Promise<Policy> {
  const [row] = await ctx.db
    .select()
    .from(sitePolicies)
    .where(and(eq(sitePolicies.kind, kind), eq(sitePolicies.locale, locale)));
  return row
    ? { kind, locale, body: row.body, updatedAt: row.updatedAt }
    : { kind, locale, body: defaultPolicy(kind, locale, returnWindowDays) };
}

/** Every policy in every language (the desk's form). */
export async function listPolicies(ctx: RequestContext, returnWindowDays: number): Promise<Policy[]> {
  const rows = await ctx.db.select().from(sitePolicies);
  return POLICY_KINDS.flatMap((kind) =>
    LOCALES.map((locale) => {
      const row = rows.find((r) => r.kind === kind && r.locale === locale);
      return row
        ? { kind, locale, body: row.body, updatedAt: row.updatedAt }
        : { kind, locale, body: defaultPolicy(kind, locale, returnWindowDays) };
    }),
  );
}

/** An admin writes a policy's text in one language; an empty text is the service's own again. */
export async function savePolicy(ctx: RequestContext, input: z.infer<typeof savePolicyBody>) {
  const who = caller(ctx);
  if (who.role !== 'admin')
    throw forbidden('error.auth.roleNeeded', { n: 1, first: 'admin', role: who.role });
  const where = and(eq(sitePolicies.kind, input.kind), eq(sitePolicies.locale, input.locale));
  await inTransaction(ctx, async (tx) => {
    const [before] = await tx.db.select({ body: sitePolicies.body }).from(sitePolicies).where(where);
    if (!input.body) await tx.db.delete(sitePolicies).where(where);
    else {
      const values = { body: input.body, updatedBy: who.id, updatedAt: tx.now() };
      await tx.db
        .insert(sitePolicies)
        .values({ kind: input.kind, locale: input.locale, ...values })
        .onConflictDoUpdate({ target: [sitePolicies.kind, sitePolicies.locale], set: values });
    }
    // A policy's text may be long: the record keeps its size and fingerprint, not the words.
    await recordAdminAction(tx, {
      action: 'policy.save',
      subject: `${input.kind}:${input.locale}`,
      before: before ? textFacts(before.body) : null,
      after: input.body ? textFacts(input.body) : null,
    });
  });
}

/** A text as the audit log keeps it: its length and its SHA-256. */
const textFacts = (text: string) => ({
  length: text.length,
  sha256: createHash('sha256').update(text).digest('hex'),
});
