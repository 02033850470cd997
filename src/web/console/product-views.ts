// The seller's products as pages: the list (with publish, unpublish and delete on each row) and
// the form that creates or edits one. Markup only.
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import type { getProduct, listProducts } from '../../modules/catalog/service.ts';
import type { View } from '../core.ts';
import {
  actionButton,
  badge,
  checkbox,
  csrfField,
  type FormError,
  field,
  formAlert,
  moneyText,
  selectField,
  textArea,
} from '../layout.ts';
import { otherLanguage, type ProductForm } from './form.ts';
import { consolePage, empty, pager, problemOf, productPath, table, th } from './views.ts';

type Detail = Awaited<ReturnType<typeof getProduct>>;
type ProductRow = Awaited<ReturnType<typeof listProducts>>['products'][number];

export interface ProductFilters {
  search?: string;
  status?: string;
  categoryId?: string;
}

/** The list's search box and filters: a GET form, so that a filtered page has its own address. */
function filterForm(v: View, f: ProductFilters, categories: readonly { id: string; name: string }[]) {
  const l = v.p.locale;
  const statuses = ['draft', 'active', 'inactive'].map((status) => ({
    value: status,
    label: t(l, 'web.console.product.statusName', { status }),
  }));
  return html`<form class="card" method="get" action="/console/products" role="search">
!${field({ name: 'search', label: t(l, 'web.console.filter.search'), type: 'search', value: f.search, attrs: ' maxlength="200"' })}
!${selectField({ name: 'status', label: t(l, 'web.console.product.status'), value: f.status ?? '', options: [{ value: '', label: t(l, 'web.console.filter.anyStatus') }, ...statuses] })}
!${selectField({ name: 'categoryId', label: t(l, 'web.console.filter.category'), value: f.categoryId ?? '', options: [{ value: '', label: t(l, 'web.console.filter.anyCategory') }, ...categories.map((c) => ({ value: c.id, label: c.name }))] })}
<button type="submit" class="secondary">${t(l, 'web.console.filter.apply')}</button></form>`;
}

/** /console/products: the shop's products, a page of them, each with its next steps. */
export function productsView(
  v: View,
  o: {
    products: readonly ProductRow[];
    pageNo: number;
    more: boolean;
    error?: FormError;
    done?: string;
    filters?: ProductFilters;
    categories?: readonly { id: string; name: string }[];
  },
) {
  const l = v.p.locale;
  const row = (p: ProductRow) => {
    const path = productPath(p.id);
    const publish =
      p.status === 'active'
        ? actionButton(v, {
            action: `${path}/status`,
            label: t(l, 'web.console.product.unpublish'),
            kind: 'secondary',
            fields: { status: 'inactive' },
          })
        : actionButton(v, {
            action: `${path}/status`,
            label: t(l, 'web.console.product.publish'),
            fields: { status: 'active' },
          });
    const remove = actionButton(v, {
      action: `${path}/delete`,
      label: t(l, 'web.console.product.delete'),
      kind: 'danger',
    });
    const view =
      p.status === 'active'
        ? html`<br><a class="hint" href="/shop/products/${encodeURIComponent(p.id)}">${t(l, 'web.console.product.view')}</a>`
        : '';
    return html`<tr><td><a href="${path}">${p.title}</a>!${view}</td><td>!${badge(l, p.status, 'web.console.product.statusName', { status: p.status })}</td><td class="num">${p.stockQuantity}</td><td class="num">${moneyText(v, p.priceCents)}</td>
<td><a href="${path}">${t(l, 'web.console.product.editLink')}<span class="visually-hidden"> ${p.title}</span></a> !${publish} !${remove}</td></tr>`;
  };
  const list = o.products.length
    ? table(
        [
          th(t(l, 'web.cart.product')),
          th(t(l, 'web.console.product.status')),
          th(t(l, 'web.console.product.stock'), true),
          th(t(l, 'web.cart.price'), true),
          th(t(l, 'web.console.actions')),
        ],
        o.products.map(row),
        t(l, 'web.console.products'),
      )
    : empty(l, 'web.console.product.none');
  return consolePage(
    v,
    t(l, 'web.console.products'),
    html`!${formAlert(o.error)}<p><a class="button" href="/console/products/new">${t(l, 'web.console.product.add')}</a> <a href="/console/products/import">${t(l, 'web.console.import.title')}</a> <a href="/products/export.csv">${t(l, 'web.console.import.export')}</a></p>!${filterForm(v, o.filters ?? {}, o.categories ?? [])}!${list}!${pager(l, '/console/products', { ...(o.filters ?? {}) }, o.pageNo, o.more)}`,
    o.done,
  );
}

/** The form of a new product, or of `product` being edited, with what was typed and its refusal. */
export function productFormView(
  v: View,
  o: {
    product?: Detail;
    categories: readonly { id: string; name: string }[];
    values: ProductForm;
    error?: FormError;
    done?: string;
    /** The edit page's form of options and variants (variant-views.ts), after this one. */
    variants?: string;
    /** The product's image gallery (image-views.ts), under the form. */
    gallery?: string;
    /** The product's low-stock alert form (notification-views.ts), under the gallery. */
    lowStock?: string;
  },
) {
  const l = v.p.locale;
  const f = o.values;
  // A product with options has its prices and stock on its variants, in the form below.
  const onVariants = Boolean(o.product?.options.length);
  const error = o.error;
  const creating = !o.product;
  const statuses = creating ? (['active', 'draft'] as const) : (['active', 'inactive', 'draft'] as const);
  const title = o.product
    ? t(l, 'web.console.product.edit', { title: o.product.title })
    : t(l, 'web.console.product.new');
  const action = o.product ? productPath(o.product.id) : '/console/products/new';
  const language = creating
    ? selectField({
        name: 'language',
        label: t(l, 'web.console.product.language'),
        value: f.language,
        error,
        options: (['en-CA', 'fr-CA'] as const).map((x) => ({
          value: x,
          label: t(l, 'web.console.product.languageName', { language: x.slice(0, 2) }),
        })),
      })
    : '';
  const form = html`<form method="post" action="${action}" class="card" novalidate>!${csrfField(v)}!${formAlert(error)}
!${language}
!${field({ name: 'title', label: t(l, 'web.console.product.title'), value: f.title, required: true, error, attrs: ' maxlength="200"' })}
!${textArea({ name: 'description', label: t(l, 'web.console.product.description'), value: f.description, error, attrs: ' maxlength="10000"' })}
!${field({ name: 'keywords', label: t(l, 'web.console.product.keywords'), hint: t(l, 'web.console.product.keywordsHint'), value: f.keywords ?? '', error, attrs: ' maxlength="1600"' })}
!${translationFields(v, f, o.product, error)}
<div class="row">!${
    onVariants
      ? html`<p class="hint">${t(l, 'web.console.variants.onVariants')}</p>`
      : html`!${field({ name: 'price', problemField: 'priceCents', label: t(l, 'web.console.product.price'), hint: t(l, 'web.console.product.priceHint'), value: f.price, required: true, error, attrs: ' inputmode="decimal" maxlength="20"' })}
!${field({ name: 'stockQuantity', type: 'number', label: t(l, 'web.console.product.stock'), value: f.stockQuantity, error, attrs: ' min="0" step="1" inputmode="numeric"' })}`
  }
!${field({ name: 'weight', label: t(l, 'web.console.product.weight'), hint: t(l, 'web.console.product.weightHint'), value: f.weight, error, attrs: ' inputmode="decimal" maxlength="20"' })}</div>
!${selectField({ name: 'categoryId', label: t(l, 'web.console.product.category'), value: f.categoryId, error, options: [{ value: '', label: t(l, 'web.console.product.noCategory') }, ...o.categories.map((c) => ({ value: c.id, label: c.name }))] })}
<fieldset><legend>${t(l, 'web.console.product.kind')}</legend>
!${checkbox({ name: 'isDigital', label: t(l, 'web.console.product.isDigital'), checked: f.isDigital })}!${problemOf(error, 'isDigital', 'f-isDigital')}
!${checkbox({ name: 'isPerishable', label: t(l, 'web.console.product.isPerishable'), checked: f.isPerishable })}!${problemOf(error, 'isPerishable', 'f-isPerishable')}</fieldset>
<input type="hidden" name="agentChannelsShown" value="1">!${checkbox({ name: 'agentChannels', label: t(l, 'web.console.product.agentChannels'), checked: f.agentChannels !== false })}!${problemOf(error, 'agentChannels', 'f-agentChannels')}
!${field({ name: 'imageUrl', type: 'url', label: t(l, 'web.console.product.imageUrl'), hint: t(l, 'web.console.product.imageHint'), value: f.imageUrl, error, attrs: ' maxlength="2048"' })}
!${selectField({ name: 'status', label: t(l, 'web.console.product.status'), value: f.status, error, options: statuses.map((x) => ({ value: x, label: t(l, 'web.console.product.statusName', { status: x }) })) })}
<button type="submit">${t(l, creating ? 'web.console.product.create' : 'web.console.product.save')}</button></form>
!${o.variants ?? ''}!${o.gallery ?? ''}!${o.lowStock ?? ''}
<p><a href="/console/products">${t(l, 'web.console.product.back')}</a></p>`;
  return consolePage(v, title, form, o.done);
}

/**
 * The other language's title, description, keywords and (editing a product with options) each
 * option's name and values: optional, marked as in that language for a screen reader. Creating,
 * the language is the one chosen above, so the legend names neither.
 */
function translationFields(v: View, f: ProductForm, product: Detail | undefined, error?: FormError) {
  const l = v.p.locale;
  const other = otherLanguage(product?.sourceLanguage ?? f.language);
  const at = `translations.${other}`;
  const tr = f.translation ?? { title: '', description: '', keywords: '', options: [] };
  const lang = html` lang="${other}"`;
  const legend = product
    ? t(l, 'web.console.product.translation', { language: other.slice(0, 2) })
    : t(l, 'web.console.product.translationNew');
  const options = (product?.options ?? []).map((o, n) => {
    const typed = tr.options[n] ?? { name: '', values: '' };
    return html`<div class="row">!${field({ name: `tr.options.${n}.name`, problemField: `${at}.options.${n}.name`, label: t(l, 'web.console.product.trOptionName', { name: o.name }), value: typed.name, error, attrs: html` maxlength="50"!${lang}` })}
!${field({ name: `tr.options.${n}.values`, problemField: `${at}.options.${n}.values`, label: t(l, 'web.console.product.trOptionValues', { name: o.name }), hint: t(l, 'web.console.product.trOptionValuesHint', { values: o.values.join(', ') }), value: typed.values, error, attrs: html` maxlength="2600"!${lang}` })}</div>`;
  });
  return html`<fieldset class="translation"><legend>${legend}</legend><p class="hint" id="f-translation-hint">${t(l, 'web.console.product.translationHint')}</p>!${problemOf(error, at, 'f-translation')}
!${field({ name: 'tr.title', problemField: `${at}.title`, label: t(l, 'web.console.product.title'), value: tr.title, error, attrs: html` maxlength="200"!${lang}` })}
!${textArea({ name: 'tr.description', problemField: `${at}.description`, label: t(l, 'web.console.product.description'), value: tr.description, error, attrs: html` maxlength="10000"!${lang}` })}
!${field({ name: 'tr.keywords', problemField: `${at}.keywords`, label: t(l, 'web.console.product.keywords'), hint: t(l, 'web.console.product.keywordsHint'), value: tr.keywords, error, attrs: html` maxlength="1600"!${lang}` })}
!${options.length ? html`!${problemOf(error, `${at}.options`, 'f-translation-options')}!${options}` : ''}</fieldset>`;
}
