// What a refused form answers, the same on every page: the form's page again, drawn by the
// caller with the refusal (the message on top, each field's problem under its field), at the
// refusal's status (400, 404, 409). Anything else goes on to the error page (401: to sign in).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type View, viewOf, type WebSettings } from './core.ts';
import { type FormError, formErrorOf, sendHtml, shownRefusal } from './layout.ts';

/** Answers `err` with `formAgain` drawn with its refusal, or rethrows what a form does not show. */
export async function answerRefusal(
  req: FastifyRequest,
  reply: FastifyReply,
  settings: WebSettings,
  err: unknown,
  formAgain: (v: View, error: FormError) => string | Promise<string>,
) {
  if (!shownRefusal(err)) throw err;
  const v = viewOf(req, reply, settings);
  return sendHtml(reply, await formAgain(v, formErrorOf(v.p.locale, err)), err.statusCode);
}
