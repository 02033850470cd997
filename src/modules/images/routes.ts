// The images the service serves itself (GET /images/:name): the sample shop's SVG tiles and the
// files of uploaded product images; and a product's gallery (/products/:productId/images).
// An SVG could carry script; its own CSP makes it inert even when opened on its own, and nosniff
// keeps every file an image.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { productIdParams } from '../../contract/catalog.ts';
import { AppError, invalid, notFound } from '../../contract/errors.ts';
import {
  productImage,
  productImageList,
  productImageParams,
  updateProductImageBody,
} from '../../contract/images.ts';
import { tooLarge, UPLOAD_MAX_BYTES } from './process.ts';
import type { ImageDeps } from './service.ts';
import * as images from './service.ts';

const SVG_NAME = /^[a-z0-9-]{1,100}\.svg$/;
/** No script, no fetch, no frame: only the SVG's own inline styles. */
const INERT = "default-src 'none'; style-src 'unsafe-inline'";
const FIELD_NAMES = new Set(['altEn', 'altFr', 'variantId', 'csrf']);

/** multipart's limits: one file of at most 10 MB, a few short fields; past them, the upload stops. */
export const MULTIPART_LIMITS = {
  fileSize: UPLOAD_MAX_BYTES,
  files: 1,
  fields: 6,
  fieldSize: 2_000,
  fieldNameSize: 40,
  parts: 8,
  headerPairs: 20,
};

export async function registerMultipart(app: FastifyInstance) {
  await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
}

/**
 * The file and fields of a multipart upload, the file read into memory (at most 10 MB: multipart
 * stops reading past it and the upload is refused 413). Unknown fields are refused.
 */
export async function readUpload(
  req: FastifyRequest,
): Promise<{ file: Buffer; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: Buffer | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          part.file.resume();
          throw invalid('error.images.fileMissing');
        }
        file = await part.toBuffer();
      } else {
        if (!FIELD_NAMES.has(part.fieldname)) throw invalid('error.images.badFields');
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw invalid('error.images.badFields');
    if (err instanceof AppError) throw err;
    // Anything else the parser throws is a body that is not multipart as sent (no boundary, cut short).
    throw invalid('error.images.badMultipart');
  }
  if (!file || file.length === 0) throw invalid('error.images.fileMissing');
  return { file, fields };
}

export function imageRoutes(deps: ImageDeps) {
  return async (fastify: FastifyInstance) => {
    await registerMultipart(fastify);
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const tags = ['catalog'];

    app.get<{ Params: { name: string } }>(
      '/images/:name',
      { config: { auth: 'public' }, schema: { hide: true } },
      async (req, reply) => {
        const name = req.params.name;
        const image = SVG_NAME.test(name)
          ? await images.findImage(req.ctx.db, name)
          : await images.findUploadedFile(deps.store, name);
        if (!image) throw notFound('error.images.notFound', { name: name.slice(0, 120) });
        return reply
          .header('content-type', image.contentType)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', INERT)
          .send(image.body);
      },
    );

    app.get(
      '/products/:productId/images',
      {
        config: { auth: 'user', limit: 'search', scope: 'shop' },
        schema: {
          tags,
          summary: "A product's uploaded images, in gallery order",
          params: productIdParams,
          response: { 200: productImageList },
        },
      },
      async (req) => images.listImages(req.ctx, deps, req.params.productId),
    );

    app.post(
      '/products/:productId/images',
      {
        config: { auth: ['seller'], limit: 'imageUploads' },
        schema: {
          tags,
          summary:
            'Upload an image (multipart/form-data: file, altEn, altFr, variantId; JPEG, PNG or WebP, at most 10 MB and 25 megapixels; owning seller)',
          params: productIdParams,
          consumes: ['multipart/form-data'],
          response: { 201: productImage },
        },
      },
      async (req, reply) => {
        // Who may upload is known before a byte of the file is read.
        const { count } = await images.editableProduct(req.ctx, req.params.productId);
        if (count >= images.GALLERY_LIMIT) throw images.galleryFull();
        if (!req.isMultipart()) throw invalid('error.images.fileMissing');
        const { file, fields } = await readUpload(req);
        const input = { file, ...images.uploadFields(fields) };
        return reply.code(201).send(await images.uploadImage(req.ctx, deps, req.params.productId, input));
      },
    );

    app.patch(
      '/products/:productId/images/:imageId',
      {
        config: { auth: ['seller'], limit: 'productWrites' },
        schema: {
          tags,
          summary: "Change an image's alt texts, variant or place in the gallery (owning seller)",
          params: productImageParams,
          body: updateProductImageBody,
          response: { 200: productImage },
        },
      },
      async (req) => images.updateImage(req.ctx, deps, req.params.productId, req.params.imageId, req.body),
    );

    app.delete(
      '/products/:productId/images/:imageId',
      {
        config: { auth: ['seller'], limit: 'productWrites' },
        schema: {
          tags,
          summary: 'Take an image out of the gallery (owning seller); answers the gallery left',
          params: productImageParams,
          response: { 200: productImageList },
        },
      },
      async (req) => images.deleteImage(req.ctx, deps, req.params.productId, req.params.imageId),
    );
  };
}
