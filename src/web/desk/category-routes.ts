// The desk's categories (/desk/categories): the tree, each under its parent, named in both
// languages; a form that adds one (POST /admin/categories's service) and a page that renames or
// moves one (PATCH /admin/categories/:id's). A name is written in its category's language; the
// other language's is its translation (empty: none).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { createCategoryBody, updateCategoryBody } from '../../contract/catalog.ts';
import { t } from '../../contract/i18n.ts';
import { categoriesAsWritten, createCategory, updateCategory } from '../../modules/catalog/service.ts';
import { empty, table, th } from '../console/views.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import {
  csrfField,
  type FormError,
  field,
  formAlert,
  notice,
  readForm,
  selectField,
  sendHtml,
} from '../layout.ts';
import { type Form, one as first } from './form.ts';

/** A form's value as typed, '' when absent. */
const one = (v: unknown): string => first(v) ?? '';

import { deskPage } from './views.ts';

const ADMINS = ['admin'] as const;
const DONE = ['created', 'saved'] as const;
const PATH = '/desk/categories';

type Category = Awaited<ReturnType<typeof categoriesAsWritten>>[number];

/** A category's name in a language: as written, or its translation ('' when none). */
const nameIn = (c: Category, l: 'en-CA' | 'fr-CA') =>
  c.language === l ? c.name : (c.translations[l]?.name ?? '');

/** The tree in reading order: each category after its parent, with its depth. */
function inTree(all: readonly Category[]): Array<{ c: Category; depth: number }> {
  const children = new Map<string | null, Category[]>();
  for (const c of all) {
    const key = c.parentId && all.some((p) => p.id === c.parentId) ? c.parentId : null;
    children.set(key, [...(children.get(key) ?? []), c]);
  }
  const out: Array<{ c: Category; depth: number }> = [];
  const seen = new Set<string>();
  const walk = (parent: string | null, depth: number) => {
    for (const c of children.get(parent) ?? []) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      out.push({ c, depth });
      walk(c.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** The form's two names as the API's body: the category's language's as `name`, the other's as its translation. */
function namesOf(f: Form, language: 'en-CA' | 'fr-CA') {
  const en = one(f.nameEn).trim();
  const fr = one(f.nameFr).trim();
  const own = language === 'en-CA' ? en : fr;
  const other = language === 'en-CA' ? fr : en;
  const otherLang = language === 'en-CA' ? 'fr-CA' : 'en-CA';
  return { name: own, translations: other ? { [otherLang]: { name: other } } : {} };
}

export function deskCategoryPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const writeRoute = { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } } as const;

  const listPage = async (
    req: FastifyRequest,
    v: View,
    o: { error?: FormError; typed?: Form; done?: string } = {},
  ) => listView(v, { ...o, tree: inTree(await categoriesAsWritten(req.ctx)) });

  app.get<{ Querystring: Record<string, string | undefined> }>(PATH, pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = DONE.find((d) => d === req.query.done);
    return sendHtml(
      reply,
      await listPage(req, v, done ? { done: t(v.p.locale, 'web.desk.categories.done', { done }) } : {}),
    );
  });

  app.post<{ Body: Form }>(PATH, writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const f = req.body ?? {};
    try {
      // Written in the desk's language when given, else in the other.
      const language = one(f.nameEn).trim() || !one(f.nameFr).trim() ? 'en-CA' : 'fr-CA';
      await createCategory(
        req.ctx,
        readForm(createCategoryBody, {
          ...namesOf(f, language),
          language,
          slug: one(f.slug).trim(),
          parentId: one(f.parentId) || null,
        }),
      );
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => listPage(req, v, { error, typed: f }));
    }
    return seeOther(reply, `${PATH}?done=created`);
  });

  const editPage = async (
    req: FastifyRequest,
    v: View,
    id: string,
    o: { error?: FormError; typed?: Form } = {},
  ) => {
    const all = await categoriesAsWritten(req.ctx);
    const c = all.find((x) => x.id === id);
    if (!c) return undefined;
    return editView(v, { c, tree: inTree(all), ...o });
  };

  app.get<{ Params: { categoryId: string } }>(`${PATH}/:categoryId`, pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const page = await editPage(req, v, req.params.categoryId);
    if (!page) return reply.callNotFound();
    return sendHtml(reply, page);
  });

  app.post<{ Params: { categoryId: string }; Body: Form }>(
    `${PATH}/:categoryId`,
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const f = req.body ?? {};
      const id = req.params.categoryId;
      const c = (await categoriesAsWritten(req.ctx)).find((x) => x.id === id);
      if (!c) return reply.callNotFound();
      try {
        await updateCategory(
          req.ctx,
          id,
          readForm(updateCategoryBody, { ...namesOf(f, c.language), parentId: one(f.parentId) || null }),
        );
      } catch (err) {
        return answerRefusal(
          req,
          reply,
          s,
          err,
          async (v, error) => (await editPage(req, v, id, { error, typed: f }))!,
        );
      }
      return seeOther(reply, `${PATH}?done=saved`);
    },
  );
}

/** The parent's choices: the top level, then every category (indented by depth) but `except` and its own. */
function parentOptions(v: View, tree: Array<{ c: Category; depth: number }>, except?: string) {
  const l = v.p.locale;
  const below = new Set<string>(except ? [except] : []);
  for (const { c } of tree) if (c.parentId && below.has(c.parentId)) below.add(c.id);
  return [
    { value: '', label: t(l, 'web.desk.categories.top') },
    ...tree
      .filter(({ c }) => !below.has(c.id))
      .map(({ c, depth }) => ({ value: c.id, label: `${'— '.repeat(depth)}${nameIn(c, l) || c.name}` })),
  ];
}

function nameFields(v: View, values: { nameEn: string; nameFr: string }, error?: FormError) {
  const l = v.p.locale;
  return html`<div class="row">!${field({ name: 'nameEn', problemField: 'name', label: t(l, 'web.desk.categories.nameEn'), value: values.nameEn, error, attrs: ' maxlength="100" lang="en-CA"' })}!${field({ name: 'nameFr', problemField: 'translations', label: t(l, 'web.desk.categories.nameFr'), value: values.nameFr, error, attrs: ' maxlength="100" lang="fr-CA"' })}</div>`;
}

function listView(
  v: View,
  o: { tree: Array<{ c: Category; depth: number }>; error?: FormError; typed?: Form; done?: string },
): string {
  const l = v.p.locale;
  const title = t(l, 'web.desk.categories.title');
  const rows = o.tree.map(
    ({ c, depth }) =>
      html`<tr><td data-label="${t(l, 'web.desk.categories.nameEn')}" lang="en-CA"><span aria-hidden="true">${'— '.repeat(depth)}</span>${nameIn(c, 'en-CA')}</td><td data-label="${t(l, 'web.desk.categories.nameFr')}" lang="fr-CA">${nameIn(c, 'fr-CA')}</td><td data-label="${t(l, 'web.desk.categories.slug')}"><code>${c.slug}</code></td><td data-label="${t(l, 'web.console.actions')}"><a href="${PATH}/${encodeURIComponent(c.id)}">${t(l, 'web.desk.categories.edit')}<span class="visually-hidden"> ${nameIn(c, l) || c.name}</span></a></td></tr>`,
  );
  const list = rows.length
    ? table(
        [
          th(t(l, 'web.desk.categories.nameEn')),
          th(t(l, 'web.desk.categories.nameFr')),
          th(t(l, 'web.desk.categories.slug')),
          th(t(l, 'web.console.actions')),
        ],
        rows,
        title,
        true,
      )
    : empty(l, 'web.desk.categories.none');
  const f = o.typed ?? {};
  const form = html`<form method="post" action="${PATH}" class="card" novalidate>!${csrfField(v)}<h2 class="first">${t(l, 'web.desk.categories.new')}</h2>!${formAlert(o.error)}
!${nameFields(v, { nameEn: one(f.nameEn), nameFr: one(f.nameFr) }, o.error)}
!${field({ name: 'slug', label: t(l, 'web.desk.categories.slug'), hint: t(l, 'web.desk.categories.slugHint'), value: one(f.slug), error: o.error, attrs: ' maxlength="100" autocapitalize="none"' })}
!${selectField({ name: 'parentId', label: t(l, 'web.desk.categories.parent'), value: one(f.parentId), error: o.error, options: parentOptions(v, o.tree) })}
<button type="submit">${t(l, 'web.desk.categories.create')}</button></form>`;
  return deskPage(
    v,
    title,
    html`!${notice(o.done)}<p class="hint">${t(l, 'web.desk.categories.intro')}</p>!${list}!${form}`,
  );
}

function editView(
  v: View,
  o: { c: Category; tree: Array<{ c: Category; depth: number }>; error?: FormError; typed?: Form },
): string {
  const l = v.p.locale;
  const name = nameIn(o.c, l) || o.c.name;
  const title = t(l, 'web.desk.categories.editOf', { name });
  const f = o.typed;
  const values = f
    ? { nameEn: one(f.nameEn), nameFr: one(f.nameFr) }
    : { nameEn: nameIn(o.c, 'en-CA'), nameFr: nameIn(o.c, 'fr-CA') };
  const parent = f ? one(f.parentId) : (o.c.parentId ?? '');
  return deskPage(
    v,
    title,
    html`<form method="post" action="${PATH}/${encodeURIComponent(o.c.id)}" class="card" novalidate>!${csrfField(v)}!${formAlert(o.error)}
!${nameFields(v, values, o.error)}
<p><code>${o.c.slug}</code></p>
!${selectField({ name: 'parentId', label: t(l, 'web.desk.categories.parent'), value: parent, error: o.error, options: parentOptions(v, o.tree, o.c.id) })}
<button type="submit">${t(l, 'web.desk.categories.save')}</button></form>
<p><a href="${PATH}">${t(l, 'web.desk.categories.back')}</a></p>`,
  );
}
