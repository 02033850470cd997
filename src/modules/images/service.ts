// Images the service makes and serves itself: the sample shop's tiles, drawn as SVG at seed time
// (no network), one per kind of product, named by a hash of their content.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/index.ts';
import { imageNamed, insertImageUnlessThere } from './queries.ts';

/** The largest image stored, in bytes (the table's check says the same). */
export const IMAGE_MAX_BYTES = 65_536;

export interface StoredImage {
  name: string;
  contentType: 'image/svg+xml';
  body: string;
}

const xml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

const slugOf = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

/** A 400×300 tile: the product's kind on its category's colour, with its initial. */
export function sampleImage(category: string, noun: string, colour: string): StoredImage {
  const body = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300" role="img" aria-label="${xml(noun)}"><rect width="400" height="300" fill="${colour}"/><circle cx="200" cy="125" r="62" fill="#ffffff" fill-opacity="0.22"/><text x="200" y="150" text-anchor="middle" font-family="system-ui, sans-serif" font-size="72" font-weight="700" fill="#ffffff">${xml(noun.slice(0, 1).toUpperCase())}</text><text x="200" y="242" text-anchor="middle" font-family="system-ui, sans-serif" font-size="24" fill="#ffffff">${xml(noun.slice(0, 30))}</text></svg>`;
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return {
    name: `sample-${slugOf(category)}-${slugOf(noun)}-${hash}.svg`,
    contentType: 'image/svg+xml',
    body,
  };
}

/** Stores images that are not there yet (a name is its content: one there is the same). */
export async function storeImages(db: Db, list: readonly StoredImage[]) {
  for (const image of list) {
    if (Buffer.byteLength(image.body) > IMAGE_MAX_BYTES) throw new Error(`image ${image.name} is too large`);
    await insertImageUnlessThere(db, image);
  }
}

export const findImage = (db: Db, name: string) => imageNamed(db, name);
