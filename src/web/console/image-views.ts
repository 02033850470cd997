// The gallery on the console's product page: each uploaded image with its alt texts (both
// languages), move and delete buttons, and the upload form (multipart; its CSRF token rides in the
// action's query, since the form's fields are not read before the file).
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { ALT_MAX, GALLERY_MAX } from '../../contract/images.ts';
import type { listImages } from '../../modules/images/service.ts';
import type { View } from '../core.ts';
import { csrfField, type FormError, field, formAlert, notice } from '../layout.ts';
import { productPath } from './views.ts';

type Image = Awaited<ReturnType<typeof listImages>>['images'][number];

export const imagesPath = (productId: string) => `${productPath(productId)}/images`;
export const imagePath = (productId: string, imageId: string) =>
  `${imagesPath(productId)}/${encodeURIComponent(imageId)}`;

/** The alt text in the reader's language, else the other one's. */
const altOf = (v: View, i: Image) => (v.p.locale === 'fr-CA' ? i.altFr || i.altEn : i.altEn || i.altFr);

export function galleryView(
  v: View,
  o: { productId: string; images: Image[]; done?: string; error?: FormError },
): string {
  const l = v.p.locale;
  const count = o.images.length;
  const altHint = t(l, 'web.console.images.altHint', { max: ALT_MAX });
  const items = o.images.map((i, n) => {
    const small = i.files[0]!;
    const path = imagePath(o.productId, i.id);
    const idn = `img-${n}`;
    const move = (direction: 'up' | 'down', to: number) =>
      html`<form class="inline" method="post" action="${path}/move">!${csrfField(v)}<input type="hidden" name="position" value="${String(to)}"><button type="submit" class="small secondary">${t(l, direction === 'up' ? 'web.console.images.up' : 'web.console.images.down')}</button></form>`;
    return html`<li class="card" aria-labelledby="${idn}">
<h3 id="${idn}">${t(l, 'web.console.images.position', { n: n + 1, count })}</h3>
<img src="${small.url}" width="${String(small.width)}" height="${String(small.height)}" alt="${altOf(v, i)}">
<form method="post" action="${path}">!${csrfField(v)}
!${field({ name: `altEn-${n}`, label: t(l, 'web.console.images.altEn'), value: i.altEn, attrs: html` maxlength="${String(ALT_MAX)}" lang="en"` })}
!${field({ name: `altFr-${n}`, label: t(l, 'web.console.images.altFr'), value: i.altFr, attrs: html` maxlength="${String(ALT_MAX)}" lang="fr"` })}
<input type="hidden" name="n" value="${String(n)}">
<button type="submit" class="small">${t(l, 'web.console.images.save')}</button></form>
<p>!${n > 0 ? move('up', n - 1) : ''}!${n < count - 1 ? move('down', n + 1) : ''}<form class="inline" method="post" action="${path}/delete">!${csrfField(v)}<button type="submit" class="small danger">${t(l, 'web.console.images.delete')}</button></form></p>
</li>`;
  });
  const upload =
    count >= GALLERY_MAX
      ? html`<p>${t(l, 'web.console.images.full', { max: GALLERY_MAX })}</p>`
      : html`<form method="post" enctype="multipart/form-data" action="${imagesPath(o.productId)}?csrf=${encodeURIComponent(v.csrf)}" class="card">
!${field({ name: 'file', type: 'file', label: t(l, 'web.console.images.file'), hint: t(l, 'web.console.images.fileHint', { max: GALLERY_MAX }), required: true, error: o.error, attrs: ' accept="image/jpeg,image/png,image/webp"' })}
!${field({ name: 'altEn', label: t(l, 'web.console.images.altEn'), hint: altHint, error: o.error, attrs: html` maxlength="${String(ALT_MAX)}" lang="en"` })}
!${field({ name: 'altFr', label: t(l, 'web.console.images.altFr'), error: o.error, attrs: html` maxlength="${String(ALT_MAX)}" lang="fr"` })}
<button type="submit">${t(l, 'web.console.images.upload')}</button></form>`;
  return html`<section id="images" aria-labelledby="images-h"><h2 id="images-h">${t(l, 'web.console.images.heading')}</h2>
!${notice(o.done)}!${formAlert(o.error)}
!${count ? html`<ol class="image-list">!${items}</ol>` : html`<p>${t(l, 'web.console.images.empty')}</p>`}
!${upload}</section>`;
}
