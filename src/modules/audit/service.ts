// The audit log (docs/api.md "Audit log"): every admin's action, recorded by the service that
// makes it, in its transaction (an action rolled back leaves no record): who, what, on what,
// when, and the thing before and after. Read newest first in the desk and over the API, and
// exported as CSV.
import { stringify } from 'csv-stringify/sync';
import { toUnix } from '../../contract/common.ts';
import type { RequestContext } from '../context.ts';
import { type AdminActionRow, adminActionsPage, insertAdminAction } from './queries.ts';
import type { AuditState } from './tables.ts';

/** The largest export: the newest this many records. */
export const AUDIT_EXPORT_MAX = 10_000;

/**
 * Records `action` on `subject` by the caller when the caller is an admin (a seller deciding their
 * own return is not an admin's action): in ctx's transaction when it is in one.
 */
export async function recordAdminAction(
  ctx: RequestContext,
  a: { action: string; subject: string; before?: AuditState | null; after?: AuditState | null },
): Promise<void> {
  const me = ctx.user;
  if (me?.role !== 'admin') return;
  await insertAdminAction(ctx.db, {
    actorId: me.id,
    actorEmail: me.email,
    action: a.action,
    subject: a.subject.slice(0, 200),
    before: a.before ?? null,
    after: a.after ?? null,
    createdAt: ctx.now(),
  });
}

const answerOf = (r: AdminActionRow) => ({
  id: r.id,
  actorId: r.actorId,
  actorEmail: r.actorEmail,
  action: r.action,
  subject: r.subject,
  before: r.before,
  after: r.after,
  createdAt: toUnix(r.createdAt),
});

export type AdminActionAnswer = ReturnType<typeof answerOf>;

/** A page of the log, newest first; `nextBefore` continues it. */
export async function auditPage(
  ctx: RequestContext,
  q: {
    limit: number;
    before?: number | undefined;
    action?: string | undefined;
    subject?: string | undefined;
  },
) {
  const rows = await adminActionsPage(ctx.db, { ...q, limit: q.limit + 1 } as Parameters<
    typeof adminActionsPage
  >[1]);
  const page = rows.slice(0, q.limit);
  return {
    actions: page.map(answerOf),
    nextBefore: rows.length > q.limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/** The newest records (at most AUDIT_EXPORT_MAX) as CSV, one per line, before and after as JSON. */
export async function auditCsv(
  ctx: RequestContext,
  q: { action?: string | undefined; subject?: string | undefined },
) {
  const rows = await adminActionsPage(ctx.db, { limit: AUDIT_EXPORT_MAX, ...q } as Parameters<
    typeof adminActionsPage
  >[1]);
  return stringify(
    rows.map((r) => [
      r.id,
      r.createdAt.toISOString(),
      r.actorId,
      r.actorEmail,
      r.action,
      r.subject,
      r.before === null ? '' : JSON.stringify(r.before),
      r.after === null ? '' : JSON.stringify(r.after),
    ]),
    {
      header: true,
      columns: ['id', 'at', 'actor_id', 'actor_email', 'action', 'subject', 'before', 'after'],
    },
  );
}

/** The newest `limit` records on any of `subjects` (an order and its returns, a user), newest first. */
export async function actionsOn(ctx: RequestContext, subjects: string[], limit: number) {
  return (await adminActionsPage(ctx.db, { limit, subjects })).map(answerOf);
}
