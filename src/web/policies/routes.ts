// The platform's policies as pages: /policies/terms, /policies/privacy and /policies/returns, in
// the visitor's language, as the admin wrote them (src/modules/policies).
import type { FastifyInstance } from 'fastify';
import { POLICY_KINDS } from '../../contract/policies.ts';
import { readPolicy } from '../../modules/policies/service.ts';
import { viewOf, type WebDeps } from '../core.ts';
import { sendHtml } from '../layout.ts';
import { policyPage } from './views.ts';

export function policyPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  for (const kind of POLICY_KINDS) {
    app.get(`/policies/${kind}`, pageRoute, async (req, reply) => {
      const v = viewOf(req, reply, s);
      const policy = await readPolicy(req.ctx, kind, v.p.locale, deps.returnWindowDays);
      return sendHtml(reply, policyPage(v, policy));
    });
  }
}
