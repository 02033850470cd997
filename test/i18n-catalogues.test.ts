// The two catalogues say the same things, and no person-facing message is written outside them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, formatDate, formatMoney, LOCALES, negotiateLocale, t } from '../src/contract/i18n.ts';

const en = CATALOGUES['en-CA'] as Record<string, string>;
const fr = CATALOGUES['fr-CA'] as Record<string, string>;
const ROOT = path.resolve(import.meta.dirname, '..');

/** The placeholders a message uses ({name}, {n, plural, …}), by walking its parsed form. */
function argumentsOf(source: string, locale: string): string[] {
  const names = new Set<string>();
  const walk = (nodes: unknown[]) => {
    for (const node of nodes as Array<{ value?: unknown; options?: Record<string, { value: unknown[] }> }>) {
      if (node.options) for (const option of Object.values(node.options)) walk(option.value);
      if (typeof node.value === 'string' && 'type' in node && (node as { type: number }).type !== 0) {
        names.add(node.value);
      }
    }
  };
  walk(new IntlMessageFormat(source, locale, undefined, { ignoreTag: true }).getAst());
  return [...names].sort();
}

describe('the catalogues', () => {
  it('hold the same keys in en-CA and fr-CA', () => {
    const onlyEn = Object.keys(en).filter((k) => !(k in fr));
    const onlyFr = Object.keys(fr).filter((k) => !(k in en));
    expect({ onlyEn, onlyFr }).toEqual({ onlyEn: [], onlyFr: [] });
  });

  it('parse as ICU MessageFormat, French using every English placeholder (plus a count for its plurals)', () => {
    // French words these values its own way, from values the code passes for it.
    const REWORDED: Record<string, string> = {
      'validation.postalCodeProvince': 'the letters joined with "ou" ({list}), not "or" ({letters})',
      'error.machine.wrongState':
        'English picks "a" or "an" by {vowel}; the French sentence needs no article',
    };
    const mismatched = Object.keys(en).filter((k) => {
      const english = argumentsOf(en[k] as string, 'en-CA');
      const french = argumentsOf(fr[k] as string, 'fr-CA');
      const missing = english.filter((a) => !french.includes(a));
      const extra = french.filter((a) => !english.includes(a) && a !== 'n');
      return (missing.length > 0 || extra.length > 0) && !(k in REWORDED);
    });
    expect(mismatched).toEqual([]);
  });

  it('translate every message that has words (identical only where the words are the same in French)', () => {
    // Names of languages (each in its own), units, and templates of values alone read the same.
    const SAME_IN_FRENCH =
      /^[^a-zA-Z]*$|^(Total|Portage|Description|Message|Notifications|Province|Code|Date|English|Français|Agents?|Actions|Pages|Minimum \(\$\)|Maximum \(\$\)|\{title\}, image \{n, number\}|Total \(CAD\)|\{[a-z]+\} (UTC|CAD)|\{[a-z]+\} \{[a-z]+\}|\{[a-z]+\} × \{[a-z]+(, number)?\}|\{[a-z]+\}|\{[a-z]+\}[.;] \{[a-z]+\})$/;
    const untranslated = Object.keys(en).filter(
      (k) => en[k] === fr[k] && !SAME_IN_FRENCH.test(en[k] as string),
    );
    expect(untranslated).toEqual([]);
  });
  it('write every number through the locale (Intl.NumberFormat or a plural), never as its bare digits', () => {
    // Arguments that hold numbers, wherever a message uses them. Not here: money (formatted
    // before, as a string), and the digits a person typed, quoted back as typed.
    const NUMBERS = new Set([
      'n',
      'count',
      'days',
      'inCart',
      'left',
      'minutes',
      'seconds',
      'quantity',
      'units',
      'page',
      'pages',
      'times',
      'held',
      'min',
      'max',
      'rating',
    ]);
    const AS_TYPED = new Set(['error.coupon.minimumSubtotal', 'tool.searchProducts.badPriceRange']);
    const bare: string[] = [];
    for (const locale of LOCALES) {
      for (const [key, source] of Object.entries(CATALOGUES[locale] as Record<string, string>)) {
        if (AS_TYPED.has(key)) continue;
        const walk = (nodes: unknown[]) => {
          for (const node of nodes as Array<{
            type: number;
            value?: unknown;
            options?: Record<string, { value: unknown[] }>;
          }>) {
            if (node.options) for (const option of Object.values(node.options)) walk(option.value);
            // 1: a bare argument ({n}); a number ({n, number}) is 2, a plural 6.
            if (node.type === 1 && NUMBERS.has(node.value as string))
              bare.push(`${locale} ${key} {${node.value}}`);
          }
        };
        walk(new IntlMessageFormat(source, locale, undefined, { ignoreTag: true }).getAst());
      }
    }
    expect(bare).toEqual([]);
    // What that gives: French decimals and groups, English groups, plurals by the locale's rules.
    expect(t('fr-CA', 'web.product.rating', { rating: 4, n: 1 })).toBe('4,0 sur 5 (1 avis)');
    expect(t('en-CA', 'web.product.rating', { rating: 4.5, n: 2 })).toBe('4.5 out of 5 (2 reviews)');
    expect(t('fr-CA', 'web.search.ratingAtLeast', { n: 1 })).toBe('1 étoile et plus');
    expect(t('fr-CA', 'web.search.ratingAtLeast', { n: 3 })).toBe('3 étoiles et plus');
    expect(t('fr-CA', 'validation.atMostCharacters', { n: 5000 })).toBe(
      // 5 000: the group separator of fr-CA in this Node.js's ICU data.
      `doit compter au plus ${new Intl.NumberFormat('fr-CA').format(5000)} caractères`,
    );
    expect(t('en-CA', 'validation.atMostCharacters', { n: 5000 })).toBe('must be at most 5,000 characters');
  });
});

describe('formats', () => {
  it('write money and dates as each locale does', () => {
    expect(formatMoney('fr-CA', 9152)).toBe('91,52\u00a0$');
    expect(formatMoney('en-CA', 9152)).toBe('$91.52');
    expect(formatMoney('fr-CA', 123456)).toBe('1\u00a0234,56\u00a0$');
    expect(formatDate('fr-CA', '2026-11-24')).toBe('24 novembre 2026');
    expect(formatDate('en-CA', '2026-11-24')).toBe('November 24, 2026');
    expect(formatDate('fr-CA', '2026-12-01')).toBe('1er décembre 2026');
    expect(formatDate('en-CA', '2026-12-01')).toBe('December 1, 2026');
    // A moment is dated in the zone asked: 9 p.m. in Toronto is still that day there.
    expect(formatDate('fr-CA', new Date('2026-11-25T02:00:00Z'), 'America/Toronto')).toBe('24 novembre 2026');
  });

  it('choose a locale from Accept-Language by quality, ignoring what we do not speak', () => {
    expect(negotiateLocale('fr-CA,fr;q=0.9,en;q=0.8')).toBe('fr-CA');
    expect(negotiateLocale('en-US,fr;q=0.5')).toBe('en-CA');
    expect(negotiateLocale('de-DE, fr;q=0.3')).toBe('fr-CA');
    expect(negotiateLocale('de-DE, es')).toBeUndefined();
    expect(negotiateLocale('fr;q=0, en;q=0.1')).toBe('en-CA');
    expect(negotiateLocale(undefined)).toBeUndefined();
    for (const locale of LOCALES) expect(t(locale, 'validation.required')).toBeTruthy();
  });
});

/** Every .ts file under src/, with its text. */
function sources(): Array<[string, string]> {
  return readdirSync(path.join(ROOT, 'src'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [`src/${f}`, readFileSync(path.join(ROOT, 'src', f), 'utf8')]);
}

const KEY = /^[a-z]+(\.[A-Za-z0-9]+)+$/;

describe('person-facing strings', () => {
  it('are catalogue keys wherever an error, a problem or a message is made', () => {
    // The first argument of the error helpers and of t()/text()/problem()'s message.
    const call =
      /\b(invalid|notFound|conflict|forbidden|rateLimited|unauthenticated|internal|text|t)\(\s*(?:[a-zA-Z.]+,\s*)?(['"`])((?:(?!\2).)*)\2/g;
    const problemCall = /\bproblem\(\s*[^,]+,\s*(['"`])((?:(?!\1).)*)\1/g;
    const offenders: string[] = [];
    for (const [file, source] of sources()) {
      // Drizzle's text('column') is not ours: t() and text() count where i18n.ts is imported.
      const usesI18n = /from '[./]+(contract\/)?i18n\.ts'/.test(source);
      for (const m of source.matchAll(call)) {
        const literal = m[3] as string;
        if ((m[1] === 't' || m[1] === 'text') && !usesI18n) continue;
        if (m[1] === 't' && !/\bt\(\s*[a-zA-Z.]+,/.test(m[0])) continue; // t(x) of another kind
        // A key put together from known parts (`validation.at${side}`): its prefix is a key's.
        if (m[2] === '`' && literal.includes('${') && /^[a-z]+(\.[A-Za-z]+)*\.[A-Za-z]*\$\{/.test(literal))
          continue;
        if (!KEY.test(literal) || !(literal in en)) offenders.push(`${file}: ${m[0]}`);
      }
      for (const m of source.matchAll(problemCall)) {
        if (!KEY.test(m[2] as string) || !((m[2] as string) in en)) offenders.push(`${file}: ${m[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('in the wire contract are catalogue keys (zod messages reach a person as field problems)', () => {
    const message =
      /\bmessage:\s*(['"`])((?:(?!\1).)*)\1|\.(?:refine|regex)\([^'"`]*?,\s*(['"`])((?:(?!\3).)*)\3\s*\)/g;
    const offenders: string[] = [];
    for (const [file, source] of sources().filter(([f]) => f.startsWith('src/contract/'))) {
      for (const m of source.matchAll(message)) {
        const literal = (m[2] ?? m[4]) as string;
        if (!KEY.test(literal) || !(literal in en)) offenders.push(`${file}: ${m[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
