// The product page's variant picker, without script: one radio group per option in a GET form,
// the variant its values name (or `?variant=<id or SKU>`), its price and availability, and the
// table of every variant. Which variant a query chooses is a pure function; so is the markup.
import { html } from 'ghtml';
import type { z } from 'zod';
import type { productDetail } from '../../contract/catalog.ts';
import { t } from '../../contract/i18n.ts';
import { stockLine } from '../../views/fragments.ts';
import type { View } from '../core.ts';
import { moneyText } from '../layout.ts';

type Detail = z.output<typeof productDetail>;
type Variant = Detail['variants'][number];

/** What the buyer chose: a value of every option, and the variant made so (none: not made). */
export interface VariantChoice {
  /** By the options as written: the address's keys and values, the same in both languages. */
  values: Record<string, string>;
  variant?: Variant;
  /** The options as written (the picker's names and values), when the page shows a translation. */
  written: Detail['options'];
}

/**
 * The product with its options as written (`written`), each variant's values mapped back by
 * position from the reader's language the detail answers: what a choice is made over.
 */
export function asWritten(p: Detail, written: Detail['options']): Detail {
  if (written === p.options) return p;
  const back = (x: Variant) =>
    Object.fromEntries(
      written.map((o, n) => {
        const shown = p.options[n]!;
        return [o.name, o.values[shown.values.indexOf(x.options[shown.name] ?? '')] ?? ''];
      }),
    );
  return { ...p, options: written, variants: p.variants.map((x) => ({ ...x, options: back(x) })) };
}

/** The chosen values as the page shows them (the reader's language when translated). */
export const shownChoice = (p: Detail, c: VariantChoice) =>
  p.options
    .map(
      (o, n) => o.values[c.written[n]?.values.indexOf(c.values[c.written[n]?.name ?? ''] ?? '') ?? -1] ?? '',
    )
    .join(' / ');

/**
 * The choice a product page's query makes: `variant` (an id or a SKU) first, then each option's
 * value by the option's name; an option not given takes the first variant on sale's value, so a
 * page without a query shows something a buyer can add. Undefined for a product sold one way.
 */
export function chooseVariant(
  shown: Detail,
  query: Record<string, unknown>,
  written = shown.options,
): VariantChoice | undefined {
  const p = asWritten(shown, written);
  if (!p.options.length || !p.variants.length) return undefined;
  const named = typeof query.variant === 'string' ? query.variant : undefined;
  const byName = named ? p.variants.find((v) => v.id === named || v.sku === named) : undefined;
  if (byName) return { values: byName.options, variant: byName, written };
  const start = p.variants.find((v) => v.available) ?? p.variants[0]!;
  const values = Object.fromEntries(
    p.options.map((o) => {
      const asked = query[o.name];
      return [o.name, typeof asked === 'string' && o.values.includes(asked) ? asked : start.options[o.name]!];
    }),
  );
  const variant = p.variants.find((v) => p.options.every((o) => v.options[o.name] === values[o.name]));
  return { values, variant, written };
}

/** A variant's price, its compare-at price struck through, each named for a screen reader. */
export function variantPrice(v: View, x: { priceCents: number; compareAtPriceCents: number | null }) {
  const l = v.p.locale;
  if (x.compareAtPriceCents === null) return html`${moneyText(v, x.priceCents)}`;
  return html`<span class="visually-hidden">${t(l, 'web.product.variant.salePrice')} </span>${moneyText(v, x.priceCents)} <s class="muted"><span class="visually-hidden">${t(l, 'web.product.variant.regularPrice')} </span>${moneyText(v, x.compareAtPriceCents)}</s>`;
}

/** A variant's availability: in stock, a few left, or out of stock (also when not on sale). */
export const variantStock = (v: View, x: Variant) => stockLine(v.p.locale, x.available ? x.stockQuantity : 0);

/** Why the chosen values cannot be added: not made, or sold out; undefined when they can. */
export function refusedChoice(v: View, c: VariantChoice): string | undefined {
  const l = v.p.locale;
  if (!c.variant) return t(l, 'web.product.variant.notMade');
  if (!c.variant.available) return t(l, 'web.product.variant.soldOut');
  return undefined;
}

/** The picker: a radio group (fieldset and legend) per option, checked as chosen, and its submit. */
export function variantPicker(v: View, p: Detail, c: VariantChoice): string {
  const l = v.p.locale;
  // Options not in the page's language are marked for screen readers, and said (as a description is).
  const lang = p.optionsLanguage !== l ? html` lang="${p.optionsLanguage}"` : '';
  const groups = p.options.map((o, n) => {
    const key = c.written[n] ?? o;
    const radios = o.values.map((shown, k) => {
      const id = `opt-${n}-${k}`;
      const value = key.values[k] ?? shown;
      return html`<label class="check" for="${id}"><input id="${id}" type="radio" name="${key.name}" value="${value}"!${c.values[key.name] === value ? ' checked' : ''}><span!${lang}>${shown}</span></label>`;
    });
    return html`<fieldset class="options"><legend!${lang}>${o.name}</legend>!${radios}</fieldset>`;
  });
  const onlyIn =
    p.optionsLanguage !== l
      ? html`<p class="hint">${t(l, p.optionsLanguage === 'fr-CA' ? 'web.product.optionsOnlyInFrench' : 'web.product.optionsOnlyInEnglish')}</p>`
      : '';
  return html`<form method="get" action="/shop/products/${p.id}" class="card picker">!${onlyIn}!${groups}<button type="submit" class="secondary">${t(l, 'web.product.variant.choose')}</button></form>`;
}

/**
 * Every variant with its price and availability; each title links to it chosen. On a phone each
 * row stacks as label and value pairs (`table.stack`): no column is cut or scrolled to.
 */
export function variantTable(v: View, p: Detail, c: VariantChoice): string {
  const l = v.p.locale;
  const [name, price, stock] = [
    t(l, 'web.product.variant.variant'),
    t(l, 'web.cart.price'),
    t(l, 'web.product.variant.availability'),
  ];
  const rows = p.variants.map((x) => {
    const current = x.id === c.variant?.id ? ' aria-current="true"' : '';
    return html`<tr><td data-label="${name}"><a href="/shop/products/${p.id}?variant=${encodeURIComponent(x.id)}"!${current}>${x.title}</a></td><td class="num" data-label="${price}">!${variantPrice(v, x)}</td><td data-label="${stock}">!${variantStock(v, x)}</td></tr>`;
  });
  return html`<h2 id="variants-h">${t(l, 'web.product.variant.all')}</h2><div class="table-wrap" tabindex="0" role="region" aria-labelledby="variants-h"><table class="stack variants"><thead><tr><th scope="col">${name}</th><th scope="col" class="num">${price}</th><th scope="col">${stock}</th></tr></thead><tbody>!${rows}</tbody></table></div>`;
}
