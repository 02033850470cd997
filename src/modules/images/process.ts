// An uploaded image made safe to serve: its type read from its bytes, its size bounded before it is
// decoded, turned upright, resized to a few widths (never enlarged) and encoded as WebP with no
// metadata at all (EXIF, GPS, XMP, ICC: sharp writes none unless asked, and converts to sRGB).
import { createHash } from 'node:crypto';
import type { Metadata } from 'sharp';
import { AppError, invalid } from '../../contract/errors.ts';
import { text } from '../../contract/i18n.ts';
import type { ImageFile } from './tables.ts';

/** The largest upload, in bytes (the multipart limit). */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
/** The most pixels an upload may have: a larger one is refused before it is decoded. */
export const UPLOAD_MAX_PIXELS = 25_000_000;
/** The widths stored; an image narrower than one is stored at its own width instead, once. */
export const IMAGE_WIDTHS = [320, 640, 1280] as const;
const FORMATS = new Set(['jpeg', 'png', 'webp']);
const WEBP_QUALITY = 80;

/** sharp, loaded at the first image (a tenth of a second the service's start need not wait for). */
let loaded: Promise<typeof import('sharp')> | undefined;
async function sharpOf() {
  loaded ??= import('sharp').then((m) => {
    // Each upload is new: libvips' operation cache would only hold memory.
    m.default.cache(false);
    return m;
  });
  return (await loaded).default;
}

export interface ProcessedImage {
  /** The original's size, upright. */
  width: number;
  height: number;
  files: Array<ImageFile & { body: Buffer }>;
}

export const tooLarge = () =>
  new AppError(
    'VALIDATION_ERROR',
    413,
    text('error.images.tooLarge', { max: UPLOAD_MAX_BYTES / 1024 / 1024 }),
  );

export async function processImage(input: Buffer): Promise<ProcessedImage> {
  const sharp = await sharpOf();
  const open = () => sharp(input, { limitInputPixels: UPLOAD_MAX_PIXELS, failOn: 'error' });
  let meta: Metadata;
  try {
    // The header only: nothing is decoded yet, so the size is checked before any pixel is.
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw invalid('error.images.unreadable');
  }
  if (!meta.format || !FORMATS.has(meta.format)) {
    throw invalid('error.images.format', { format: String(meta.format ?? 'unknown').slice(0, 20) });
  }
  const [w, h] = [meta.width ?? 0, meta.height ?? 0];
  if (w * h > UPLOAD_MAX_PIXELS)
    throw invalid('error.images.tooManyPixels', { max: UPLOAD_MAX_PIXELS / 1_000_000 });
  // EXIF orientations 5 to 8 turn the picture a quarter: its upright width is its stored height.
  const [width, height] = (meta.orientation ?? 1) >= 5 ? [h, w] : [w, h];
  const widths = [...IMAGE_WIDTHS.filter((x) => x < width), Math.min(width, IMAGE_WIDTHS.at(-1)!)];
  const files: ProcessedImage['files'] = [];
  try {
    // Decoded once, upright, at the largest width (JPEG shrinks while it decodes); the smaller
    // widths are made from those pixels, not from the original again.
    const largest = widths.at(-1)!;
    const base = await open()
      .rotate()
      .resize({ width: largest, withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { width: base.info.width, height: base.info.height, channels: base.info.channels };
    for (const target of [...new Set(widths)]) {
      const { data, info } = await sharp(base.data, { raw })
        .resize({ width: target, withoutEnlargement: true })
        .webp({ quality: WEBP_QUALITY })
        .toBuffer({ resolveWithObject: true });
      const hash = createHash('sha256').update(data).digest('hex').slice(0, 16);
      files.push({
        width: info.width,
        height: info.height,
        name: `${hash}-${info.width}.webp`,
        contentType: 'image/webp',
        body: data,
      });
    }
  } catch {
    // A header that reads well over a body that does not (truncated, corrupt).
    throw invalid('error.images.unreadable');
  }
  return { width, height, files };
}

/** An SVG drawn as a PNG (librsvg, inside sharp): the sample shop's tiles made raster, no network. */
export const rasterOfSvg = async (svg: string) => (await sharpOf())(Buffer.from(svg)).png().toBuffer();
