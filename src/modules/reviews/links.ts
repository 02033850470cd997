// Whether review text carries a link, which holds the review for moderation
// (../shared/design/decisions.md "Returns and reviews"). Biased to flag: a false alarm costs
// a short wait for an admin; a miss publishes spam. The rule (README "Reviews"):
//  - the text is first folded: NFKC (full-width letters and dots become plain ones), format
//    characters (zero-width spaces, soft hyphens) removed, the ideographic full stops read
//    as dots, and written-out dots ("[.]", "(dot)", "{dot}", " dot " before a known top-level
//    domain) read as dots;
//  - then it is a link when it holds a scheme (`http://`, `hxxp://`, `h t t p s : / /`, any
//    `name://`, `mailto:`, `javascript:`, `data:type/`), `www.`, a markdown link `[text](target)`,
//    an HTML link or embed (`<a `, `href=`, `<img`, `<iframe`), an IPv4 address, a name ending
//    in a common top-level domain (`example.com`, `shop.example.ca`, `bit.ly`; with `@` this
//    also catches email addresses), or any `name.word/path` (`youtu.be/x`).

/** Top-level domains that make `name.tld` a link on their own (common, or spammers' favourites). */
const TLDS = [
  'com',
  'net',
  'org',
  'info',
  'biz',
  'io',
  'co',
  'ca',
  'us',
  'uk',
  'de',
  'fr',
  'eu',
  'ru',
  'cn',
  'au',
  'nz',
  'jp',
  'br',
  'nl',
  'ly',
  'gl',
  'gg',
  'cc',
  'tv',
  'ws',
  'pw',
  'tk',
  'ml',
  'ga',
  'cf',
  'gq',
  'su',
  'xyz',
  'top',
  'site',
  'online',
  'store',
  'shop',
  'app',
  'dev',
  'link',
  'click',
  'live',
  'club',
  'pro',
  'vip',
  'win',
  'bid',
  'buzz',
  'icu',
  'fun',
  'space',
  'website',
  'tech',
  'life',
  'today',
  'world',
  'email',
  'page',
  'art',
  'onion',
  'ai',
  'gov',
  'edu',
  'mobi',
  'name',
];
const TLD = `(?:${TLDS.join('|')})`;
const TLD_SET = new Set(TLDS);

const FORMAT_CHARS = /\p{Cf}/gu;
const IDEOGRAPHIC_DOTS = /[\u3002\uFF61\uFE52\u2024]/g;
const WRITTEN_DOT = /(?<!\s)\s*[[({<]\s*(?:dot|\.)\s*[\])}>]\s*/gi;
const SPOKEN_DOT = new RegExp(`(?<=[a-z0-9])\\s+dot\\s+(?=${TLD}\\b)`, 'gi');

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
];

function fold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(FORMAT_CHARS, '')
    .replace(IDEOGRAPHIC_DOTS, '.')
    .replace(WRITTEN_DOT, '.')
    .replace(SPOKEN_DOT, '.');
}

/** Dotted names, and what follows them: one linear pass (a pattern that backtracked would not be). */
const DOTTED = /(?<![\p{L}\p{N}_-])[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+(\/\S)?/gu;

/** An IPv4 address, a name in a known top-level domain, or any `name.word/path`. */
function hasHostName(text: string): boolean {
  for (const m of text.matchAll(DOTTED)) {
    const labels = m[0].replace(/\/\S$/, '').toLowerCase().split('.');
    const last = labels[labels.length - 1]!;
    if (TLD_SET.has(last)) return true;
    if (m[1] && /^\p{L}{2,}$/u.test(last)) return true;
    if (labels.length === 4 && labels.every((l) => /^\d{1,3}$/.test(l))) return true;
  }
  return false;
}

/** True when `text` carries a link by the rule above. */
export function containsLink(text: string): boolean {
  if (text === '') return false;
  const folded = fold(text);
  return LINK_PATTERNS.some((p) => p.test(folded)) || hasHostName(folded);
}
