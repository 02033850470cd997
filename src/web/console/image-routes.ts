// The console's gallery forms (the product page's #images section): upload (multipart), alt
// texts, move, delete. Each calls the images service the API's routes call; a refusal draws the
// product page again with it, under the gallery.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '../../contract/errors.ts';
import { updateProductImageBody } from '../../contract/images.ts';
import { readUpload, registerMultipart } from '../../modules/images/routes.ts';
import * as images from '../../modules/images/service.ts';
import { seeOther, signedIn, type View, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm } from '../layout.ts';
import type { Body } from './form.ts';
import { productPath } from './views.ts';

const SELLERS = ['seller'] as const;
export const IMAGE_DONE = ['uploaded', 'saved', 'moved', 'deleted'] as const;

type Params = { productId: string; imageId: string };

export function consoleImagePages(
  app: FastifyInstance,
  deps: WebDeps,
  /** The product's page with a refusal of a gallery form. */
  pageAgain: (req: FastifyRequest, v: View, productId: string, error: FormError) => Promise<string>,
) {
  const s = deps.settings;
  const route = (limit: 'imageUploads' | 'productWrites') =>
    ({ config: { auth: 'public', limit }, schema: { hide: true } }) as const;
  const back = (productId: string, done: (typeof IMAGE_DONE)[number]) =>
    `${productPath(productId)}?image=${done}#images`;

  // The upload alone takes multipart (its own scope): every other form stays urlencoded.
  app.register(async (scope) => {
    await registerMultipart(scope);
    scope.post<{ Params: { productId: string } }>(
      '/console/products/:productId/images',
      route('imageUploads'),
      async (req, reply) => {
        signedIn(req, SELLERS);
        const id = req.params.productId;
        try {
          const { count } = await images.editableProduct(req.ctx, id);
          if (count >= images.GALLERY_LIMIT) throw images.galleryFull();
          const { file, fields } = await readUpload(req);
          await images.uploadImage(req.ctx, deps.images, id, { file, ...images.uploadFields(fields) });
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) => pageAgain(req, v, id, error));
        }
        return seeOther(reply, back(id, 'uploaded'));
      },
    );
  });

  const imageAction = (
    path: string,
    done: (typeof IMAGE_DONE)[number],
    act: (req: FastifyRequest<{ Params: Params; Body: Body }>) => Promise<unknown>,
  ) =>
    app.post<{ Params: Params; Body: Body }>(
      `/console/products/:productId/images/:imageId${path}`,
      route('productWrites'),
      async (req, reply) => {
        signedIn(req, SELLERS);
        const id = req.params.productId;
        try {
          await act(req);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) => pageAgain(req, v, id, error));
        }
        return seeOther(reply, back(id, done));
      },
    );

  const field = (body: Body, name: string) => {
    const v = body[name];
    return typeof v === 'string' ? v : undefined;
  };

  imageAction('', 'saved', (req) => {
    const n = field(req.body, 'n') ?? '';
    if (!/^[0-9]$/.test(n)) throw invalid('web.form.fix');
    const change = readForm(updateProductImageBody, {
      altEn: field(req.body, `altEn-${n}`) ?? '',
      altFr: field(req.body, `altFr-${n}`) ?? '',
    });
    return images.updateImage(req.ctx, deps.images, req.params.productId, req.params.imageId, change);
  });
  imageAction('/move', 'moved', (req) => {
    const change = readForm(updateProductImageBody, { position: Number(field(req.body, 'position')) });
    return images.updateImage(req.ctx, deps.images, req.params.productId, req.params.imageId, change);
  });
  imageAction('/delete', 'deleted', (req) =>
    images.deleteImage(req.ctx, deps.images, req.params.productId, req.params.imageId),
  );
}
