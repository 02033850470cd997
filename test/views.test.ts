// The template layer (src/views): in each frame, a value a person wrote with < " & ' goes in
// escaped, and a fragment marked with !${} goes in as it is.
import { html } from 'ghtml';
import { describe, expect, it } from 'vitest';
import { documentFrame } from '../src/views/document.ts';
import { emailDocument, multiline } from '../src/views/email.ts';
import { field } from '../src/views/forms.ts';
import { productCard } from '../src/views/fragments.ts';
import { sitePage } from '../src/views/page.ts';
import { smallPage } from '../src/views/small-page.ts';
import { viewDocument } from '../src/views/view-frame.ts';
import { wordsWith } from '../src/views/words.ts';

const EVIL = `<script>alert("x" & 'y')</script>`;
const ESCAPED = '&#60;script&#62;alert(&#34;x&#34; &#38; &#39;y&#39;)&#60;/script&#62;';

/** The frame's own markup aside, what `evil` became in `out`. */
function expectEscaped(out: string) {
  expect(out).toContain(ESCAPED);
  expect(out).not.toContain('<script>alert');
}

describe('the template layer', () => {
  it('the document frame escapes its title and keeps its body fragment', () => {
    const out = documentFrame({ lang: 'en-CA', title: EVIL, body: html`<p>${EVIL}</p>` });
    expectEscaped(out);
    expect(out).toContain(`<title>${ESCAPED}</title>`);
    expect(out).toContain(`<p>${ESCAPED}</p>`);
  });

  it('the site page frame escapes the title, the search box and what the body holds', () => {
    const out = sitePage(
      { p: { locale: 'fr-CA' }, csrf: `a"b`, here: `/?q=${encodeURIComponent(EVIL)}` },
      { title: EVIL, body: html`<h1>${EVIL}</h1>` },
    );
    expectEscaped(out);
    expect(out).toContain(`<html lang="fr-CA">`);
    expect(out).toContain(`value="${ESCAPED}"`);
    expect(out).toContain(`<h1>${ESCAPED}</h1>`);
  });

  it('the small-page frame escapes its title and the fragments in it', () => {
    const out = smallPage({ locale: 'en-CA', here: `/oauth?x="1"` }, EVIL, html`<p>${EVIL}</p>`);
    expectEscaped(out);
    expect(out).toContain('<meta name="referrer" content="no-referrer">');
    expect(out).toContain('?x&#61;%221%22');
  });

  it('the email frame escapes its title; a multi-line text keeps its breaks', () => {
    const out = emailDocument('en-CA', EVIL, [
      html`<p>${EVIL}</p>`,
      html`<p>!${multiline(`a\n${EVIL}`)}</p>`,
    ]);
    expectEscaped(out);
    expect(out).toContain(`<p>a<br>${ESCAPED}</p>`);
  });

  it('the view frame escapes its name; a product card, its title and image', () => {
    const doc = viewDocument({ name: EVIL, style: '', words: { x: EVIL }, script: '' });
    expect(doc).toContain(`data-view="${ESCAPED}"`);
    // JSON in a script element: no < left to close it.
    expect(doc).not.toContain('<script>alert');
    const card = productCard('en-CA', {
      id: 'p1',
      title: EVIL,
      priceCents: 100,
      imageUrl: `https://img.example/a.png?"><script>`,
      rating: 0,
      reviewCount: 0,
      stockQuantity: 3,
    } as never);
    expectEscaped(card);
    expect(card).toContain('src="https://img.example/a.png?&#34;&#62;&#60;script&#62;"');
  });

  it('forms and messages: labels and values escaped, fragments in place', () => {
    expectEscaped(field({ name: 'n', label: EVIL, value: EVIL }));
    const out = wordsWith(
      'en-CA',
      'page.consent.signedInAs',
      { agent: EVIL },
      { email: html`<strong>${EVIL}</strong>` },
    );
    expectEscaped(out);
    expect(out).toContain(`<strong>${ESCAPED}</strong>`);
  });
});
