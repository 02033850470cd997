// The seller's money in the console (/console/payouts): the balances and the payout account, the
// next payout and the form of its schedule and minimum (PUT /sellers/me/payout-account's schema),
// the payouts, the disputes and the evidence form (POST /sellers/me/disputes/:id/evidence's
// service, with one optional file read from a multipart body of its own bounded scope), and the
// monthly statements as the API draws them. The markup is payout-views.ts.
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, invalid, type Problem } from '../../contract/errors.ts';
import { formatMoney, type Locale, t, text } from '../../contract/i18n.ts';
import { moneyOfOrders } from '../../modules/orders/service.ts';
import { ProviderError } from '../../modules/payments/provider.ts';
import { payoutSettingsBody } from '../../modules/payouts/account-routes.ts';
import {
  MINIMUM_CENTS,
  openPayoutAccount,
  payoutAccountOf,
  updatePayoutSettings,
} from '../../modules/payouts/accounts.ts';
import { ownPath } from '../../modules/payouts/providers/sandbox.ts';
import * as service from '../../modules/payouts/service.ts';
import { sendStatement } from '../../modules/payouts/statement-routes.ts';
import { type StatementFormat, statementFile, statementMonths } from '../../modules/payouts/statements.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { formErrorOf, readForm, sendHtml } from '../layout.ts';
import { type Body, centsOf, doneOf, one } from './form.ts';
import { EVIDENCE_FILE_MAX_BYTES, type PayoutForm, type PayoutsPage, payoutsView } from './payout-views.ts';

const SELLERS = ['seller'] as const;
const DONE = ['saved', 'sent', 'opened'] as const;
const HERE = '/console/payouts';

/** The evidence form: the API's body. */
const evidenceBody = z.object({ text: z.string().trim().min(1).max(20_000) });

const EVIDENCE_FILE_MAX_MB = EVIDENCE_FILE_MAX_BYTES / 1024 / 1024;

/** The evidence form's multipart: one file of at most 5 MB and a few fields (the text: 20,000 characters). */
const EVIDENCE_LIMITS = {
  fileSize: EVIDENCE_FILE_MAX_BYTES,
  files: 1,
  fields: 3,
  fieldSize: 80_004,
  fieldNameSize: 20,
  parts: 4,
  headerPairs: 20,
};

/** The kinds of file Stripe takes as evidence, known by their first bytes (never the name or declared type). */
const EVIDENCE_KINDS = [
  { type: 'application/pdf', ext: 'pdf', magic: Buffer.from('%PDF-') },
  { type: 'image/png', ext: 'png', magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', ext: 'jpg', magic: Buffer.from([0xff, 0xd8, 0xff]) },
] as const;

const fileProblem = (status: number, message: Parameters<typeof invalid>[0]) =>
  new AppError('VALIDATION_ERROR', status, text('web.form.fix'), [
    { field: 'file', message: text(message, { max: EVIDENCE_FILE_MAX_MB }) },
  ]);

/** The uploaded file as the provider takes it: its type by its bytes, its name's stem with that type's extension. */
function evidenceFile(filename: string, data: Buffer) {
  const kind = EVIDENCE_KINDS.find((k) => data.subarray(0, k.magic.length).equals(k.magic));
  if (!kind) throw fileProblem(400, 'web.console.payouts.evidenceFileType');
  const stem = path
    .basename(filename.replaceAll('\\', '/'), path.extname(filename))
    .replace(/[^\p{L}\p{N} ._-]/gu, '')
    .slice(0, 80);
  return { name: `${stem || 'evidence'}.${kind.ext}`, type: kind.type, data };
}

/** The evidence form's text and file: multipart (the form's), or urlencoded without a file. */
async function readEvidence(req: FastifyRequest) {
  if (!req.isMultipart()) return { text: one((req.body as Body | undefined)?.text), file: undefined };
  let typed = '';
  let file: { filename: string; data: Buffer } | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw invalid('error.images.badFields');
        }
        const data = await part.toBuffer();
        if (data.length > 0) file = { filename: part.filename ?? '', data };
      } else if (part.fieldname === 'text') typed = String(part.value);
      else if (part.fieldname !== 'csrf') throw invalid('error.images.badFields');
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fileProblem(413, 'web.console.payouts.evidenceFileTooLarge');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw invalid('error.images.badFields');
    throw invalid('error.images.badMultipart');
  }
  return { text: typed, file };
}

/** A provider's refusal or outage as the form's refusal. */
const asRefusal = (err: unknown) =>
  err instanceof ProviderError
    ? new AppError('PAYMENT_PROVIDER_ERROR', err.retryable ? 503 : 400, err.publicMessage)
    : err;

/** The minimum's problem said in dollars, under the form's own field. */
function onSettingsForm(l: Locale, err: unknown): unknown {
  if (!(err instanceof AppError) || !err.problems) return err;
  const problems: Problem[] = err.problems.map((p) =>
    p.field === 'minimumCents'
      ? {
          field: 'minimum',
          message: text('web.console.payouts.minimumProblem', {
            from: formatMoney(l, MINIMUM_CENTS.min),
            to: formatMoney(l, MINIMUM_CENTS.max),
          }),
        }
      : p,
  );
  return new AppError(err.code, err.statusCode, err.text, problems);
}

export function consolePayoutPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } } as const;

  /** The page, with a refused form's refusal and what was typed in it. */
  const payoutsPage = async (
    req: FastifyRequest,
    v: View,
    o: Pick<PayoutsPage, 'done' | 'error' | 'form'> = {},
  ) => {
    const me = signedIn(req, SELLERS);
    const ctx = req.ctx;
    const [balance, account, payouts, disputes, months] = await Promise.all([
      service.myBalance(ctx),
      payoutAccountOf(ctx, me.id),
      service.myPayouts(ctx, 20),
      service.myDisputes(ctx, 20),
      statementMonths(ctx, me.id),
    ]);
    const numbers = new Map(
      (await moneyOfOrders(ctx, { orderIds: [...new Set(disputes.disputes.map((d) => d.orderId))] })).map(
        (x) => [x.id, x.number],
      ),
    );
    return payoutsView(v, {
      ...o,
      balance,
      account,
      payouts: payouts.payouts,
      disputes: disputes.disputes.map((d) => ({
        ...d,
        orderNumber: numbers.get(d.orderId) ?? null,
        fileSent: d.evidenceFileSent,
      })),
      months,
      provider: deps.payouts.payouts.name,
      holdDays: deps.payouts.payoutHoldDays,
      now: ctx.now(),
    });
  };

  /** A refused form: the page again with it; a provider's outage too (503), said on the form. */
  const refused = async (req: FastifyRequest, reply: FastifyReply, err: unknown, form: PayoutForm) => {
    const e = asRefusal(err);
    if (e instanceof AppError && e.code === 'PAYMENT_PROVIDER_ERROR') {
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await payoutsPage(req, v, { error: formErrorOf(v.p.locale, e), form }),
        e.statusCode,
      );
    }
    return answerRefusal(req, reply, s, e, (v, error) => payoutsPage(req, v, { error, form }));
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(HERE, pageRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const v = viewOf(req, reply, s);
    const done = doneOf(DONE, req.query.done);
    const provider = t(v.p.locale, 'web.console.payouts.provider', { provider: deps.payouts.payouts.name });
    return sendHtml(
      reply,
      await payoutsPage(req, v, {
        done: done && t(v.p.locale, 'web.console.payouts.done', { done, provider }),
      }),
    );
  });

  // Opens the payout account, then on to the provider's onboarding: straight there when it is a
  // page of ours (the sandbox's); another site's link is followed from the page, as a link (a
  // form's redirect to another site is what the pages' form-action 'self' forbids).
  app.post(`${HERE}/account`, postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    let onboardingUrl: string;
    try {
      ({ onboardingUrl } = await openPayoutAccount(req.ctx, deps.payouts));
    } catch (err) {
      return refused(req, reply, err, { name: 'account' });
    }
    return seeOther(reply, ownPath(onboardingUrl, deps.payouts.publicBaseUrl) ?? `${HERE}?done=opened`);
  });

  app.post<{ Body: Body }>(`${HERE}/settings`, postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const body = req.body ?? {};
    const form = {
      name: 'settings' as const,
      schedule: one(body.schedule),
      minimum: one(body.minimum).trim(),
    };
    try {
      await updatePayoutSettings(
        req.ctx,
        readForm(payoutSettingsBody, {
          schedule: form.schedule || undefined,
          minimumCents: centsOf(form.minimum),
        }),
      );
    } catch (err) {
      return refused(req, reply, onSettingsForm(req.ctx.locale ?? 'en-CA', err), form);
    }
    return seeOther(reply, `${HERE}?done=saved`);
  });

  // The evidence form takes a file (multipart, its CSRF token in the action's query): its own scope,
  // its own limits; past 5 MB the upload stops being read and the form says so under the field.
  app.register(async (scope) => {
    await scope.register(multipart, { limits: EVIDENCE_LIMITS, throwFileSizeLimit: true });
    scope.post<{ Params: { disputeId: string } }>(
      `${HERE}/disputes/:disputeId/evidence`,
      postRoute,
      async (req, reply) => {
        signedIn(req, SELLERS);
        const disputeId = req.params.disputeId.slice(0, 100);
        let typed = '';
        try {
          const read = await readEvidence(req);
          typed = read.text;
          const evidence = readForm(evidenceBody, { text: typed });
          const file = read.file && evidenceFile(read.file.filename, read.file.data);
          await service.sendEvidence(req.ctx, deps.payouts, disputeId, {
            ...evidence,
            ...(file ? { file } : {}),
          });
        } catch (err) {
          return refused(req, reply, err, { name: 'evidence', disputeId, text: typed });
        }
        return seeOther(reply, `${HERE}?done=sent`);
      },
    );
  });

  // The statements, as the API draws them, in the page's language unless the link says.
  for (const format of ['pdf', 'csv'] as const satisfies readonly StatementFormat[]) {
    app.get<{ Params: { month: string }; Querystring: Record<string, string | undefined> }>(
      `${HERE}/statements/:month.${format}`,
      pageRoute,
      async (req, reply) => {
        const me = signedIn(req, SELLERS);
        const v = viewOf(req, reply, s);
        const asked = req.query.locale;
        const locale: Locale = asked === 'fr-CA' || asked === 'en-CA' ? asked : v.p.locale;
        reply.header('content-security-policy', "default-src 'none'");
        return sendStatement(
          reply,
          await statementFile(req.ctx, me.id, req.params.month.slice(0, 20), format, locale),
        );
      },
    );
  }
}
