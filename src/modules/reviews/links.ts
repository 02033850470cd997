// Whether review text carries a link, which holds the review for moderation (docs/api.md "Reviews").
// Biased to flag: a false alarm costs a short wait for an admin; a miss publishes spam. The
// text is first folded, so that a link written to slip past still reads as one:
//  - NFKC (full-width letters and dots become plain ones), format characters (zero-width
//    spaces, soft hyphens) removed;
//  - look-alike Cyrillic and Greek letters read as the Latin ones (`еvil.сom` is `evil.com`);
//  - odd dots (`‧ · • ∙ ⋅ ․ 。 ｡ ﹒`) read as dots, a dot with a space before it (`evil . com`,
//    `evil .com`) joined (a sentence's dot has none before it), and written-out dots (`[.]`,
//    `(dot)`, `{dot}`, ` dot ` before a top-level domain) read as dots.
// Then it is a link when linkify-it finds one with the full list of top-level domains (the
// `tlds` package: `evil.me`, `is.gd`, `t.me`, emails, IP addresses), when it holds a scheme
// (`http://`, `hxxp://`, `h t t p s : / /`, any `name://`, `mailto:`, `javascript:`,
// `data:type/`), `www.`, a markdown link `[text](target)`, an HTML link or embed, or a
// `name.word/path` (a domain not in the list yet). A sentence run into the next
// (`product.It works`) reads as a link in `.it`: it waits for an admin.
import { createRequire } from 'node:module';
import LinkifyIt from 'linkify-it';

// The list is a JSON module: required, which every Node.js version and the build load alike.
const tlds = createRequire(import.meta.url)('tlds') as string[];

const linkify = new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true }).tlds(tlds);
const TLD_SET = new Set(tlds);

/** Cyrillic and Greek letters drawn like Latin ones, as the Latin letter. */
const LOOKALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ʏ: 'y',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'g');
const HAS_LOOKALIKE = new RegExp(LOOKALIKE.source);

const FORMAT_CHARS = /\p{Cf}/gu;
const ODD_DOTS = /[\u00B7\u2022\u2024\u2027\u2219\u22C5\u3002\uFF61\uFE52]/g;
const SPACED_DOT = /(?<=[\p{L}\p{N}])\s+\.\s*(?=[\p{L}\p{N}])/gu;
const WRITTEN_DOT = /(?<!\s)\s*[[({<]\s*(?:dot|\.)\s*[\])}>]\s*/gi;
/** ` dot ` before a word that is a top-level domain. */
const SPOKEN_DOT = /(?<=[\p{L}\p{N}])\s+dot\s+(?=(\p{L}{2,63})(?![\p{L}\p{N}]))/giu;

const LINK_PATTERNS: RegExp[] = [
  // Schemes, also spaced out or defanged (hxxp), and any other `name://`.
  /\b(?:h\s*[tx]\s*[tx]\s*p\s*s?|ftp)\s*:\s*\/\s*\//i,
  /\b[a-z][a-z0-9+.-]{1,30}:\/\//i,
  /\b(?:mailto|javascript|vbscript):|\bdata:[a-z]+\//i,
  /\bwww\d{0,3}\s*\./i,
  // Markdown [text](target) and HTML links or embeds.
  /\[[^[\]\n]*\]\([^()\s]+\)/,
  /<(?:a|img|iframe|script|embed|object|link|meta)\b/i,
  /\b(?:href|src)\s*=/i,
  // `name.word/path`: a domain whatever its top-level domain (one linear pass).
  /(?<![\p{L}\p{N}_-])[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*\.\p{L}{2,}\/\S/u,
];

function fold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(FORMAT_CHARS, '')
    .replace(ODD_DOTS, '.')
    .replace(WRITTEN_DOT, '.')
    .replace(SPOKEN_DOT, (spoken, tld: string) => (TLD_SET.has(tld.toLowerCase()) ? '.' : spoken))
    .replace(SPACED_DOT, '.');
}

const hasLink = (text: string) => LINK_PATTERNS.some((p) => p.test(text)) || linkify.test(text);

/** True when `text` carries a link by the rule above. */
export function containsLink(text: string): boolean {
  if (text === '') return false;
  const folded = fold(text);
  // As written (a Cyrillic domain is a domain), and with look-alike letters read as Latin ones.
  return (
    hasLink(folded) ||
    (HAS_LOOKALIKE.test(folded) && hasLink(folded.replace(LOOKALIKE, (c) => LOOKALIKES[c]!)))
  );
}
