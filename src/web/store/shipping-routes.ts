// The checkout's shipping step (`/shop/checkout/<sessionId>/shipping`): after the address form,
// a checkout whose parcels ship more than one way comes here; the buyer chooses per parcel, and
// chooseShipping prices the cart again with those choices (a new session when they change it)
// before the payment page. Only the buyer's own open cart checkout is shown; another's, or an
// agent's, is 404 as in the API; one paid or expired says so, with the way back to the cart.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type Problem } from '../../contract/errors.ts';
import { text } from '../../contract/i18n.ts';
import { shopNames } from '../../modules/auth/sellers.ts';
import { chooseShipping, getCheckout, sessionForPayment } from '../../modules/checkout/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, sendHtml, shownRefusal } from '../layout.ts';
import { choiceField, shippingEndedPage, shippingPage } from './shipping-views.ts';

const BUYERS = ['buyer'] as const;

/** Where the payment page is: our own page by its path (the person's browser may know us by another name), else the provider's URL. */
export function paymentPathOf(sessionUrl: string, publicBaseUrl: string): string {
  const to = new URL(sessionUrl);
  return to.origin === new URL(publicBaseUrl).origin ? to.pathname + to.search : sessionUrl;
}

/** An open checkout's step: its session (options named in the reader's language) and its address. */
interface OpenStep {
  ended?: undefined;
  session: Awaited<ReturnType<typeof getCheckout>>;
  address: NonNullable<Awaited<ReturnType<typeof sessionForPayment>>>['address'];
}
type Step = { ended: 'expired' | 'paid' } | OpenStep;

/** The signed-in buyer's cart checkout `id` as the step shows it; anyone else's is not there (404). */
async function stepOf(
  req: FastifyRequest,
  buyerId: string,
  id: string,
  publishableKey: string,
): Promise<Step> {
  const row = await sessionForPayment(req.ctx, id);
  // An agent's checkout (given lines, held for its platform) is not the pages' to change.
  if (!row || row.buyerId !== buyerId || row.adapterSessionId !== null) {
    throw new AppError('NOT_FOUND', 404, text('error.checkout.sessionNotFound', { id }));
  }
  if (row.status === 'complete') return { ended: 'paid' };
  if (row.status !== 'ready_for_payment' || row.expiresAt <= req.ctx.now()) return { ended: 'expired' };
  // Not paid: it has no orders to read.
  const session = await getCheckout(req.ctx, publishableKey, id, async () => []);
  return { session, address: row.address };
}

/** A form's one value (a repeated name counts its first). */
const one = (v: unknown) => (Array.isArray(v) ? v[0] : v);

export function storeShippingPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const commerce = deps.commerce;

  /** The step's page: the session's parcels, their shops' names, the choices as posted and their refusal. */
  const stepPage = async (
    req: FastifyRequest,
    v: View,
    step: OpenStep,
    o: { chosen?: Record<string, string>; error?: FormError } = {},
  ) =>
    shippingPage(v, {
      ...o,
      session: step.session,
      address: step.address,
      shops: await shopNames(
        req.ctx,
        step.session.parcels.map((p) => p.sellerId),
      ),
    });

  const ended = (req: FastifyRequest, reply: FastifyReply, how: 'expired' | 'paid', status = 200) =>
    sendHtml(reply, shippingEndedPage(viewOf(req, reply, s), how), status);

  app.get<{ Params: { sessionId: string } }>(
    '/shop/checkout/:sessionId/shipping',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const user = signedIn(req, BUYERS);
      const step = await stepOf(req, user.id, req.params.sessionId, commerce.publishableKey);
      if (step.ended) return ended(req, reply, step.ended);
      return sendHtml(reply, await stepPage(req, viewOf(req, reply, s), step));
    },
  );

  app.post<{ Params: { sessionId: string }; Body: Record<string, string | string[]> }>(
    '/shop/checkout/:sessionId/shipping',
    { config: { auth: 'public', limit: 'checkout' }, schema: { hide: true } },
    async (req, reply) => {
      const user = signedIn(req, BUYERS);
      const id = req.params.sessionId;
      const step = await stepOf(req, user.id, id, commerce.publishableKey);
      if (step.ended) return ended(req, reply, step.ended, 409);
      const body = req.body ?? {};
      // Each parcel's choice as posted; a parcel not named keeps the option its session has.
      const chosen: Record<string, string> = {};
      const problems: Problem[] = [];
      for (const p of step.session.parcels) {
        const given = one(body[choiceField(p.sellerId)]);
        const option = typeof given === 'string' && given !== '' ? given : p.shippingOption?.id;
        if (!option) continue;
        chosen[p.sellerId] = option;
        if (!p.shippingOptions.some((o) => o.id === option)) {
          problems.push({ field: choiceField(p.sellerId), message: text('web.shipping.notChosen') });
        }
      }
      try {
        if (problems.length) throw new AppError('VALIDATION_ERROR', 400, text('web.form.fix'), problems);
        // Nothing changed (the options checked when the page opened): this session's payment page.
        const unchanged = step.session.parcels.every((p) => chosen[p.sellerId] === p.shippingOption?.id);
        if (unchanged && step.session.sessionUrl) {
          return seeOther(reply, paymentPathOf(step.session.sessionUrl, commerce.publicBaseUrl));
        }
        const { session } = await chooseShipping(
          req.ctx,
          commerce,
          id,
          Object.entries(chosen).map(([seller_id, option_id]) => ({ seller_id, option_id })),
        );
        return seeOther(reply, paymentPathOf(session.sessionUrl, commerce.publicBaseUrl));
      } catch (err) {
        // Ended meanwhile (paid in another tab, lapsed, replaced by a newer checkout of the cart).
        if (err instanceof AppError && err.statusCode === 404) return ended(req, reply, 'expired', 409);
        if (!shownRefusal(err)) throw err;
        // The service names `shipping_choices`, a field this form does not have: its words on top.
        const onTop = err.problems?.find((p) => p.field === 'shipping_choices');
        const shown = onTop ? new AppError(err.code, err.statusCode, onTop.message) : err;
        return answerRefusal(req, reply, s, shown, (v, error) => stepPage(req, v, step, { chosen, error }));
      }
    },
  );
}
