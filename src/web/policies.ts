// The platform's policies as pages: /policies/terms, /policies/privacy and /policies/returns, in
// the visitor's language, as the admin wrote them (src/modules/policies). An admin's text is
// never HTML: it is escaped whole, and only its blank lines, "## " headings and "- " lists
// become markup.
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../contract/format.ts';
import { type Locale, t } from '../contract/i18n.ts';
import { POLICY_KINDS } from '../contract/policies.ts';
import { sayHtml } from '../modules/page-layout.ts';
import { readPolicy } from '../modules/policies/service.ts';
import { viewOf, type WebDeps } from './core.ts';
import { dateText, page, say, sendHtml } from './layout.ts';

/** A policy's text as HTML: paragraphs, "## " headings and "- " lists; everything else escaped. */
export function policyHtml(body: string): string {
  return body
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => {
      const lines = block.split('\n').map((line) => line.trim());
      if (lines.every((line) => line.startsWith('- '))) {
        return `<ul>${lines.map((line) => `<li>${escapeHtml(line.slice(2).trim())}</li>`).join('')}</ul>`;
      }
      // A heading may head its paragraph directly, without a blank line between them.
      const head = lines[0]!.startsWith('## ')
        ? `<h2>${escapeHtml(lines.shift()!.slice(3).trim())}</h2>`
        : '';
      if (!lines.length) return head;
      if (lines.every((line) => line.startsWith('- '))) {
        return `${head}<ul>${lines.map((line) => `<li>${escapeHtml(line.slice(2).trim())}</li>`).join('')}</ul>`;
      }
      return `${head}<p>${lines.map(escapeHtml).join('<br>')}</p>`;
    })
    .join('\n');
}

/** "By paying, you accept our terms of use and our returns policy", the two linked (the checkout's). */
export const acceptTermsLine = (l: Locale) =>
  `<p class="hint">${sayHtml(
    l,
    'web.checkout.acceptTerms',
    {},
    {
      terms: `<a href="/policies/terms">${say(l, 'web.policies.link.terms')}</a>`,
      returns: `<a href="/policies/returns">${say(l, 'web.policies.link.returns')}</a>`,
    },
  )}</p>`;

export function policyPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  for (const kind of POLICY_KINDS) {
    app.get(`/policies/${kind}`, pageRoute, async (req, reply) => {
      const v = viewOf(req, reply, s);
      const l = v.p.locale;
      const policy = await readPolicy(req.ctx, kind, l, deps.returnWindowDays);
      const title = t(l, 'web.policies.title', { kind });
      return sendHtml(
        reply,
        page(v, {
          title,
          index: true,
          body: `<article class="card policy"><h1>${escapeHtml(title)}</h1>${policyHtml(policy.body)}${
            policy.updatedAt
              ? `<p class="muted">${say(l, 'web.policies.updated', { date: dateText(v, policy.updatedAt) })}</p>`
              : ''
          }</article>`,
        }),
      );
    });
  }
}
