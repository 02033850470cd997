// The API's errors in the reader's language (issue 24): Accept-Language: fr-CA answers the
// messages in Québec French, the codes, fields and statuses unchanged; without the header the
// answers are the English they always were, byte for byte.
import { describe, expect, it } from 'vitest';
import { type Answer, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer } from './helpers/builders.ts';

const { t } = useTestApp();

const FR = { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' };
const MISSING = 'products:AAAAAAAAAAAAAAAAAAAA';

let me: SignedIn;
const signedIn = async () => {
  me ??= await buyer(t.api);
  return me;
};

/** The same request in French and without the header: the two answers. */
async function both(ask: (headers: Record<string, string>) => Promise<Answer>) {
  const fr = await ask(FR);
  const en = await ask({});
  expect(fr.status).toBe(en.status);
  return { fr: fr.body, en: en.body };
}

describe('errors in the reader’s language', () => {
  it('a product that does not exist: 404 in French, the same 404 in English', async () => {
    const b = await signedIn();
    const { fr, en } = await both((h) => t.api.as(b).get(`/products/${MISSING}`, h));
    expect(fr).toEqual({ error: `Produit ${MISSING} introuvable`, code: 'NOT_FOUND', statusCode: 404 });
    expect(en).toEqual({ error: `Product ${MISSING} not found`, code: 'NOT_FOUND', statusCode: 404 });
  });

  it('a validation error: the error and each field’s message in French, fields and code unchanged', async () => {
    const { fr, en } = await both((h) =>
      t.api.post('/auth/register', { email: 'not-an-email', password: 'short' }, h),
    );
    expect(fr).toEqual({
      error:
        'Corps de la requête invalide : email doit être une adresse courriel; ' +
        'password doit compter au moins 8 caractères; name est obligatoire',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [
        { field: 'email', message: 'doit être une adresse courriel' },
        { field: 'password', message: 'doit compter au moins 8 caractères' },
        { field: 'name', message: 'est obligatoire' },
      ],
    });
    expect(en).toEqual({
      error:
        'Invalid body: email must be an email address; password must be at least 8 characters; name is required',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [
        { field: 'email', message: 'must be an email address' },
        { field: 'password', message: 'must be at least 8 characters' },
        { field: 'name', message: 'is required' },
      ],
    });
  });

  it('a missing token: 401 in French, the AUTH_ERROR prefix kept', async () => {
    const { fr, en } = await both((h) => t.api.get('/me', h));
    expect(fr).toEqual({
      error: 'AUTH_ERROR: Jeton manquant; envoyez Authorization: Bearer <token>',
      code: 'AUTH_ERROR',
      statusCode: 401,
    });
    expect(en).toEqual({
      error: 'AUTH_ERROR: Missing token; send Authorization: Bearer <token>',
      code: 'AUTH_ERROR',
      statusCode: 401,
    });
  });

  it('the wrong role: 403 naming the role in French, the AUTHZ_ERROR prefix kept', async () => {
    const b = await signedIn();
    const { fr, en } = await both((h) => t.api.as(b).post('/products', { title: 'x', priceCents: 100 }, h));
    expect(fr).toEqual({
      error: 'AUTHZ_ERROR: Il faut le rôle vendeur; votre rôle est acheteur',
      code: 'AUTHZ_ERROR',
      statusCode: 403,
    });
    expect(en.error).toBe('AUTHZ_ERROR: This needs the seller role; you are buyer');
  });

  it('a query string out of bounds and a bad search filter: French problems, the same fields', async () => {
    const b = await signedIn();
    const limit = await both((h) => t.api.as(b).get('/products?limit=101', h));
    expect(limit.fr).toEqual({
      error: 'Paramètres de requête invalides : limit doit être d’au plus 100',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'limit', message: 'doit être d’au plus 100' }],
    });
    expect(limit.en).toEqual({
      error: 'Invalid querystring: limit must be at most 100',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'limit', message: 'must be at most 100' }],
    });

    const filter = await both((h) => t.api.as(b).get('/search/products?filters=rating:9', h));
    expect(filter.fr).toEqual({
      error: 'Filtre « rating:9 » invalide : rating doit être un nombre de 0 à 5',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'filters', message: '« rating:9 » : rating doit être un nombre de 0 à 5' }],
    });
    expect(filter.en).toEqual({
      error: 'Invalid filter "rating:9": rating must be a number from 0 to 5',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'filters', message: '"rating:9": rating must be a number from 0 to 5' }],
    });
  });

  it('a coupon that does not exist: 404 in French', async () => {
    const b = await signedIn();
    const { fr, en } = await both((h) => t.api.as(b).post('/cart/coupon', { code: 'nope-123' }, h));
    expect(fr).toEqual({ error: 'Aucun coupon avec le code NOPE-123', code: 'NOT_FOUND', statusCode: 404 });
    expect(en).toEqual({ error: 'No coupon with the code NOPE-123', code: 'NOT_FOUND', statusCode: 404 });
  });

  it('Accept-Language without French or English answers in English (the default locale)', async () => {
    const res = await t.api.get('/me', { 'accept-language': 'de-DE,es;q=0.8' });
    expect(res.body.error).toBe('AUTH_ERROR: Missing token; send Authorization: Bearer <token>');
  });
});
