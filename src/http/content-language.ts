// Every answer says the language it is written in (docs/i18n.md "Whose language"): the
// request's locale (the user's saved one, else Accept-Language, else DEFAULT_LOCALE), as
// `Content-Language`. The typed client reads it back, so that a program (the tool server) can
// write its own messages in the language the service chose for the person. An answer that set
// its own (a page in the language of its `?lang=`) keeps it.
import type { FastifyInstance } from 'fastify';
import { localeOf } from './errors.ts';

export function registerContentLanguage(app: FastifyInstance) {
  app.addHook('onSend', (req, reply, payload, done) => {
    if (!reply.hasHeader('content-language')) reply.header('content-language', localeOf(req));
    // A cache must not hand one person's French answer to another's English request.
    const vary = reply.getHeader('vary');
    if (!vary) reply.header('vary', 'Accept-Language');
    else if (!/accept-language/i.test(String(vary))) reply.header('vary', `${vary}, Accept-Language`);
    done(null, payload);
  });
}
