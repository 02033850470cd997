// An order's conversation on a page (the buyer's order page, the seller's order page): its
// messages, oldest first, each said as who wrote it and when, and the form to write one more
// (POST /orders/:id/messages's service). Markup only.
import { html } from 'ghtml';
import { t } from '../contract/i18n.ts';
import { MESSAGE_MAX } from '../contract/order-messages.ts';
import { multiline } from '../views/email.ts';
import type { View } from './core.ts';
import { csrfField, dateText, type FormError, formAlert, textArea } from './layout.ts';

export interface ConversationMessage {
  from: 'buyer' | 'seller' | 'admin';
  mine: boolean;
  body: string;
  created_at: number;
}

export function conversationSection(
  v: View,
  o: {
    messages: readonly ConversationMessage[];
    action: string;
    other: 'buyer' | 'seller';
    error?: FormError;
    typed?: string;
  },
): string {
  const l = v.p.locale;
  const items = o.messages.map(
    (m) =>
      html`<li!${m.mine ? ' class="mine"' : ''}><p class="hint">${t(l, 'web.messages.from', { from: m.mine ? 'me' : m.from })} · <time datetime="${new Date(m.created_at * 1000).toISOString()}">${dateText(v, m.created_at)}</time></p><p>!${multiline(m.body)}</p></li>`,
  );
  const list = items.length
    ? html`<ul class="messages">!${items}</ul>`
    : html`<p>${t(l, 'web.messages.none', { other: o.other })}</p>`;
  return html`<section class="card" id="messages" aria-labelledby="messages-h"><h2 id="messages-h" class="first">${t(l, 'web.messages.title', { other: o.other })}</h2>!${list}
<form method="post" action="${o.action}" novalidate>!${csrfField(v)}!${formAlert(o.error)}
!${textArea({ name: 'body', label: t(l, 'web.messages.write', { other: o.other }), hint: t(l, 'web.messages.hint'), value: o.typed ?? '', error: o.error, attrs: html` maxlength="${MESSAGE_MAX}" rows="3"` })}
<button type="submit" class="secondary">${t(l, 'web.messages.send')}</button></form></section>`;
}
