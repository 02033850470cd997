// Categories in the desk (issue 43): renamed in either language and moved in the tree over the API
// (never under itself or its own), each change in the audit log; the desk's page lists the tree in
// both languages, adds one and edits one, refusals under their fields; admins only.
import { describe, expect, it } from 'vitest';
import { admin, buyer, useTestApp } from './helpers/app.ts';
import { expectError, expectInvalid } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

const unique = () => Math.random().toString(36).slice(2, 8);

describe('PATCH /admin/categories/:id', () => {
  it('renames, translates and moves; refuses a loop, an unknown parent; records each change', async () => {
    const boss = await admin(t.api, database);
    const make = async (name: string, parentId?: string) => {
      const res = await t.api.as(boss).post('/admin/categories', {
        name,
        slug: `${name.toLowerCase()}-${unique()}`,
        ...(parentId ? { parentId } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { id: string };
    };
    const home = await make('Home');
    const kitchen = await make('Kitchen', home.id);
    const knives = await make('Knives', kitchen.id);

    const renamed = await t.api.as(boss).patch(`/admin/categories/${kitchen.id}`, {
      name: 'Kitchenware',
      translations: { 'fr-CA': { name: 'Cuisine' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: kitchen.id, name: 'Kitchenware', parentId: home.id });
    const fr = await t.api.as(boss).get('/categories', { 'Accept-Language': 'fr-CA' });
    expect(fr.body.categories.find((c: { id: string }) => c.id === kitchen.id)).toMatchObject({
      name: 'Cuisine',
      language: 'fr-CA',
    });

    // Under its own subcategory, or itself: the tree would loop.
    for (const parentId of [knives.id, kitchen.id]) {
      expectInvalid(await t.api.as(boss).patch(`/admin/categories/${kitchen.id}`, { parentId }), [
        { field: 'parentId', message: 'cannot be the category itself or one of its subcategories' },
      ]);
    }
    expectInvalid(
      await t.api.as(boss).patch(`/admin/categories/${kitchen.id}`, { parentId: 'categories:nope' }),
      [{ field: 'parentId', message: 'unknown category' }],
    );
    const moved = await t.api.as(boss).patch(`/admin/categories/${knives.id}`, { parentId: null });
    expect(moved.body).toMatchObject({ parentId: null });
    expectError(
      await t.api.as(boss).patch('/admin/categories/categories:nope', { name: 'X' }),
      'NOT_FOUND',
      404,
    );
    expectError(
      await t.api.as(await buyer(t.api)).patch(`/admin/categories/${kitchen.id}`, { name: 'X' }),
      'AUTHZ_ERROR',
      403,
    );

    const log = await t.api.as(boss).get(`/admin/audit?subject=${encodeURIComponent(kitchen.id)}`);
    expect(log.body.actions.map((a: { action: string }) => a.action)).toEqual([
      'category.update',
      'category.create',
    ]);
    expect(log.body.actions[0]).toMatchObject({
      before: { name: 'Kitchen', translations: {}, parentId: home.id },
      after: { name: 'Kitchenware', translations: { 'fr-CA': { name: 'Cuisine' } }, parentId: home.id },
    });
  });
});

describe('/desk/categories', () => {
  it('lists the tree in both languages, adds one, edits one; refuses under the fields', async () => {
    const boss = await admin(t.api, database);
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    await desk.get('/desk/categories');
    const slug = `garden-${unique()}`;
    const bad = await desk.post('/desk/categories', {
      nameEn: 'Garden',
      nameFr: 'Jardin',
      slug: 'Not A Slug',
      parentId: '',
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="f-slug-error"');
    expect(bad.html).toContain('value="Jardin"');
    const added = await desk.post('/desk/categories', {
      nameEn: 'Garden',
      nameFr: 'Jardin',
      slug,
      parentId: '',
    });
    expect(added.url).toBe('/desk/categories?done=created');
    expect(textOf(added.html)).toContain('The category is added.');
    expect(textOf(added.html)).toContain(`Garden Jardin ${slug}`);
    const garden = (await t.api.as(boss).get('/categories')).body.categories.find(
      (c: { slug: string }) => c.slug === slug,
    );

    const child = await desk.post('/desk/categories', {
      nameEn: 'Seeds',
      nameFr: '',
      slug: `${slug}-seeds`,
      parentId: garden.id,
    });
    expect(child.url).toBe('/desk/categories?done=created');
    expect(child.html).toContain('<span aria-hidden="true">— </span>Seeds');
    const seeds = (await t.api.as(boss).get('/categories')).body.categories.find(
      (c: { slug: string }) => c.slug === `${slug}-seeds`,
    );

    // The garden under its own seeds: refused under "Under"; the parent's choices leave them out.
    const edit = await desk.get(`/desk/categories/${encodeURIComponent(garden.id)}`);
    expect(edit.html).not.toContain(`value="${seeds.id}"`);
    const loop = await desk.post(`/desk/categories/${encodeURIComponent(garden.id)}`, {
      nameEn: 'Garden',
      nameFr: 'Jardin',
      parentId: seeds.id,
    });
    expect(loop.status).toBe(400);
    expect(loop.html).toContain('id="f-parentId-error"');
    const saved = await desk.post(`/desk/categories/${encodeURIComponent(garden.id)}`, {
      nameEn: 'Garden and yard',
      nameFr: 'Jardin et cour',
      parentId: '',
    });
    expect(saved.url).toBe('/desk/categories?done=saved');
    expect(textOf(saved.html)).toContain('Garden and yard Jardin et cour');

    const shopper = new Browser(t.app);
    await shopper.signIn(await buyer(t.api));
    expect((await shopper.get('/desk/categories')).status).toBe(403);
  });
});
