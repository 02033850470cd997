// HTTP adapter of the catalog: categories and products.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  category,
  categoryIdParams,
  categoryList,
  createCategoryBody,
  createProductBody,
  createVariantBody,
  listProductsQuery,
  productDetail,
  productIdParams,
  productList,
  productVariant,
  updateCategoryBody,
  updateProductBody,
  updateVariantBody,
  variantIdParams,
  variantList,
} from '../../contract/catalog.ts';
import { unchecked } from '../../http/route-defaults.ts';
import { csvRoutes } from './csv-routes.ts';
import * as catalog from './service.ts';

const tags = ['catalog'];

export async function catalogRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/categories',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: { tags, summary: 'Every category', response: { 200: categoryList } },
    },
    async (req) => catalog.listCategories(req.ctx),
  );

  app.post(
    '/admin/categories',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'Create a category',
        body: createCategoryBody,
        response: { 201: category },
      },
    },
    async (req, reply) => reply.code(201).send(await catalog.createCategory(req.ctx, req.body)),
  );

  app.patch(
    '/admin/categories/:categoryId',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'Rename a category, or move it under another (never under itself or its own)',
        params: categoryIdParams,
        body: updateCategoryBody,
        response: { 200: category },
      },
    },
    async (req) => catalog.updateCategory(req.ctx, req.params.categoryId, req.body),
  );

  app.get(
    '/products',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: {
        tags,
        summary: 'List products (oldest first); buyers see active products, sellers also all of their own',
        querystring: listProductsQuery,
        response: { 200: productList },
      },
      serializerCompiler: unchecked,
    },
    async (req) => catalog.listProducts(req.ctx, req.query),
  );

  app.get(
    '/products/:productId',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: {
        tags,
        summary: 'Product detail (HTTP and tool fields in one shape)',
        params: productIdParams,
        response: { 200: productDetail },
      },
    },
    async (req) => catalog.getProduct(req.ctx, req.params.productId),
  );

  app.post(
    '/products',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary: "Create a product in the caller's catalog",
        body: createProductBody,
        response: { 201: productDetail },
      },
    },
    async (req, reply) => reply.code(201).send(await catalog.createProduct(req.ctx, req.body)),
  );

  app.patch(
    '/products/:productId',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary: 'Change a product (owning seller)',
        params: productIdParams,
        body: updateProductBody,
        response: { 200: productDetail },
      },
    },
    async (req) => catalog.updateProduct(req.ctx, req.params.productId, req.body),
  );

  app.delete(
    '/products/:productId',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary: 'Delete a product (soft: status becomes deleted, for good)',
        params: productIdParams,
        response: { 200: productDetail },
      },
    },
    async (req) => catalog.deleteProduct(req.ctx, req.params.productId),
  );

  app.get(
    '/products/:productId/variants',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: {
        tags,
        summary: "A product's variants (buyers see those on sale; the seller every one not deleted)",
        params: productIdParams,
        response: { 200: variantList },
      },
    },
    async (req) => catalog.listVariants(req.ctx, req.params.productId),
  );

  app.post(
    '/products/:productId/variants',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary: 'Add a variant to a product with options (owning seller)',
        params: productIdParams,
        body: createVariantBody,
        response: { 201: productVariant },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await catalog.createVariant(req.ctx, req.params.productId, req.body)),
  );

  app.patch(
    '/products/:productId/variants/:variantId',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary:
          'Change a variant: SKU, option values, price, stock, parcel, image, barcode, status (owning seller)',
        params: variantIdParams,
        body: updateVariantBody,
        response: { 200: productVariant },
      },
    },
    async (req) => catalog.changeVariant(req.ctx, req.params.productId, req.params.variantId, req.body),
  );

  app.delete(
    '/products/:productId/variants/:variantId',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary: "Delete a variant (its row stays for its orders); a product's last variant cannot go",
        params: variantIdParams,
        response: { 200: z.object({ deleted: z.boolean(), id: z.string() }) },
      },
    },
    async (req) => catalog.removeVariant(req.ctx, req.params.productId, req.params.variantId),
  );

  // Its own scope: the text/csv parser that hands the body over as a stream is the import's alone.
  await fastify.register(csvRoutes);
}
