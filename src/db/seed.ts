// Sample data (ratings start at zero: they come from reviews only): a realistic Canadian catalog (sellers in several provinces, categories,
// perishable and digital items, keywords), deterministic for a given seed, inserted in bulk
// so that a million products is practical. Seeded records have deterministic ids, so seeding
// twice with the same seed adds nothing.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { ContentLanguage, ProductTranslations } from '../contract/catalog.ts';
import type { Province } from '../contract/common.ts';
import { type StoredImage, sampleImage, storeImages, storeSampleRasters } from '../modules/images/service.ts';
import type { ImageStore } from '../modules/images/store.ts';
import type { Db } from './index.ts';
import { rowsOf } from './sql.ts';

/** mulberry32: a small, fast, seedable PRNG. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}

/** A deterministic record key from a seed and a name. */
const seededKey = (seed: number, name: string) =>
  createHash('sha256').update(`${seed}:${name}`).digest('base64url').slice(0, 20);

interface CategorySpec {
  slug: string;
  name: string;
  /** The name in French. */
  nameFr: string;
  /** Its sample images' colour (white text on it reads at WCAG AA). */
  colour: string;
  digital?: boolean;
  perishable?: boolean;
  nouns: Array<[noun: string, keywords: string[], priceDollars: [number, number], kg: number]>;
}

export const CATEGORIES: CategorySpec[] = [
  {
    slug: 'food-and-drink',
    name: 'Food & Drink',
    nameFr: 'Alimentation et boissons',
    colour: '#8a3b12',
    perishable: true,
    nouns: [
      ['Maple Syrup', ['maple', 'syrup', 'breakfast'], [12, 45], 1.2],
      ['Smoked Salmon', ['salmon', 'fish', 'seafood'], [18, 60], 0.5],
      ['Aged Cheddar', ['cheese', 'cheddar', 'dairy'], [9, 35], 0.6],
      ['Butter Tarts', ['tarts', 'baking', 'dessert'], [10, 28], 0.8],
      ['Wild Blueberry Jam', ['blueberry', 'jam', 'preserves'], [7, 18], 0.4],
      ['Ice Wine Jelly', ['icewine', 'jelly', 'preserves'], [9, 24], 0.4],
      ['Sourdough Loaf', ['bread', 'sourdough', 'bakery'], [6, 14], 0.9],
      ['Wildflower Honey', ['honey', 'wildflower', 'sweet'], [8, 30], 0.7],
    ],
  },
  {
    slug: 'outdoors',
    name: 'Outdoors',
    nameFr: 'Plein air',
    colour: '#1d5c3a',
    nouns: [
      ['Canoe Paddle', ['canoe', 'paddle', 'water'], [60, 220], 1.1],
      ['Snowshoes', ['snowshoe', 'winter', 'hiking'], [90, 320], 2.4],
      ['Camping Tent', ['tent', 'camping', 'shelter'], [120, 600], 4.5],
      ['Sleeping Bag', ['sleeping', 'camping', 'warm'], [70, 400], 1.8],
      ['Trail Lantern', ['lantern', 'light', 'camping'], [25, 90], 0.7],
      ['Fishing Rod', ['fishing', 'rod', 'lake'], [40, 260], 1.0],
    ],
  },
  {
    slug: 'clothing',
    name: 'Clothing',
    nameFr: 'Vêtements',
    colour: '#4a3b7a',
    nouns: [
      ['Wool Toque', ['toque', 'hat', 'winter'], [18, 55], 0.2],
      ['Down Parka', ['parka', 'coat', 'winter'], [180, 900], 2.0],
      ['Flannel Shirt', ['flannel', 'shirt', 'plaid'], [35, 110], 0.5],
      ['Leather Mittens', ['mittens', 'gloves', 'winter'], [30, 120], 0.3],
      ['Merino Socks', ['socks', 'merino', 'wool'], [12, 40], 0.2],
      ['Rain Jacket', ['jacket', 'rain', 'waterproof'], [90, 350], 0.9],
    ],
  },
  {
    slug: 'home',
    name: 'Home & Kitchen',
    nameFr: 'Maison et cuisine',
    colour: '#6b4a1f',
    nouns: [
      ['Cedar Cutting Board', ['cutting', 'board', 'kitchen'], [35, 140], 1.6],
      ['Beeswax Candle', ['candle', 'beeswax', 'light'], [12, 45], 0.4],
      ['Wool Blanket', ['blanket', 'wool', 'bedding'], [80, 320], 2.2],
      ['Stoneware Mug', ['mug', 'coffee', 'pottery'], [18, 48], 0.5],
      ['Cast Iron Skillet', ['skillet', 'cooking', 'iron'], [45, 180], 3.2],
    ],
  },
  {
    slug: 'sports',
    name: 'Sports',
    nameFr: 'Sports',
    colour: '#1f4e79',
    nouns: [
      ['Hockey Stick', ['hockey', 'stick', 'ice'], [40, 330], 0.6],
      ['Figure Skates', ['skates', 'skating', 'ice'], [90, 600], 2.1],
      ['Curling Broom', ['curling', 'broom', 'ice'], [50, 200], 0.7],
      ['Lacrosse Stick', ['lacrosse', 'stick', 'field'], [45, 220], 0.6],
    ],
  },
  {
    slug: 'books',
    name: 'Books',
    nameFr: 'Livres',
    colour: '#5a5a1e',
    digital: true,
    nouns: [
      ['Field Guide to Birds (e-book)', ['birds', 'guide', 'nature'], [9, 30], 0],
      ['Canadian History Reader (e-book)', ['history', 'canada', 'reading'], [12, 40], 0],
      ['Northern Cookbook (e-book)', ['cookbook', 'recipes', 'cooking'], [10, 35], 0],
      ['Paddling Maps (digital)', ['maps', 'canoe', 'routes'], [8, 25], 0],
    ],
  },
  {
    slug: 'music',
    name: 'Music',
    nameFr: 'Musique',
    colour: '#7a1f4e',
    digital: true,
    nouns: [
      ['Fiddle Album (download)', ['fiddle', 'folk', 'album'], [9, 20], 0],
      ['East Coast Songs (download)', ['songs', 'folk', 'maritime'], [9, 20], 0],
      ['Prairie Soundscapes (download)', ['ambient', 'nature', 'album'], [7, 18], 0],
    ],
  },
  {
    slug: 'crafts',
    name: 'Crafts & Art',
    nameFr: 'Artisanat et art',
    colour: '#2f5d5d',
    nouns: [
      ['Soapstone Carving', ['carving', 'soapstone', 'art'], [120, 1200], 2.5],
      ['Hooked Rug', ['rug', 'hooked', 'textile'], [150, 700], 1.8],
      ['Birch Bark Basket', ['basket', 'birch', 'craft'], [40, 260], 0.4],
      ['Landscape Print', ['print', 'painting', 'landscape'], [30, 300], 0.3],
    ],
  },
];

// About one product in ten carries each adjective: "handmade" is the broad one-word query.
const ADJECTIVES = [
  'Handmade',
  'Organic',
  'Rustic',
  'Classic',
  'Premium',
  'Small-batch',
  'Heritage',
  'Local',
  'Artisan',
  'Vintage',
];
const REGIONS: Array<[string, Province]> = [
  ['Muskoka', 'ON'],
  ['Niagara', 'ON'],
  ['Ottawa Valley', 'ON'],
  ['Laurentians', 'QC'],
  ['Eastern Townships', 'QC'],
  ['Okanagan', 'BC'],
  ['Vancouver Island', 'BC'],
  ['Kootenay', 'BC'],
  ['Rocky Mountain', 'AB'],
  ['Prairie', 'SK'],
  ['Manitoba Lakes', 'MB'],
  ['Cape Breton', 'NS'],
  ['Annapolis Valley', 'NS'],
  ['Bay of Fundy', 'NB'],
  ['Island', 'PE'],
  ['Newfoundland', 'NL'],
  ['Yukon', 'YT'],
];
const PHRASES = [
  'Made in small runs by a family workshop.',
  'Built to last through a long Canadian winter.',
  'A favourite gift from coast to coast to coast.',
  'Sourced from independent makers and farms.',
  'Packed with care and shipped from our shop.',
  'Inspired by cottage weekends and lakeside mornings.',
  'Every piece is inspected before it leaves.',
  'Ethically made with traceable materials.',
];

/**
 * The catalog in French: each noun's French name (its gender and number, for the adjective's
 * agreement; a suffix such as "(livre numérique)" after the adjective) and keywords.
 */
const FRENCH_NOUNS: Record<
  string,
  { noun: string; g: 'm' | 'f'; plural?: boolean; suffix?: string; keywords: string[] }
> = {
  'Maple Syrup': { noun: "Sirop d'érable", g: 'm', keywords: ['érable', 'sirop', 'déjeuner'] },
  'Smoked Salmon': { noun: 'Saumon fumé', g: 'm', keywords: ['saumon', 'poisson', 'fruits de mer'] },
  'Aged Cheddar': { noun: 'Cheddar vieilli', g: 'm', keywords: ['fromage', 'cheddar', 'laitier'] },
  'Butter Tarts': {
    noun: 'Tartes au beurre',
    g: 'f',
    plural: true,
    keywords: ['tartes', 'pâtisserie', 'dessert'],
  },
  'Wild Blueberry Jam': {
    noun: 'Confiture de bleuets sauvages',
    g: 'f',
    keywords: ['bleuets', 'confiture', 'conserves'],
  },
  'Ice Wine Jelly': {
    noun: 'Gelée de vin de glace',
    g: 'f',
    keywords: ['vin de glace', 'gelée', 'conserves'],
  },
  'Sourdough Loaf': { noun: 'Pain au levain', g: 'm', keywords: ['pain', 'levain', 'boulangerie'] },
  'Wildflower Honey': {
    noun: 'Miel de fleurs sauvages',
    g: 'm',
    keywords: ['miel', 'fleurs sauvages', 'sucré'],
  },
  'Canoe Paddle': { noun: 'Pagaie de canot', g: 'f', keywords: ['canot', 'pagaie', 'eau'] },
  Snowshoes: {
    noun: 'Raquettes à neige',
    g: 'f',
    plural: true,
    keywords: ['raquettes', 'hiver', 'randonnée'],
  },
  'Camping Tent': { noun: 'Tente de camping', g: 'f', keywords: ['tente', 'camping', 'abri'] },
  'Sleeping Bag': { noun: 'Sac de couchage', g: 'm', keywords: ['couchage', 'camping', 'chaud'] },
  'Trail Lantern': { noun: 'Lanterne de sentier', g: 'f', keywords: ['lanterne', 'lumière', 'camping'] },
  'Fishing Rod': { noun: 'Canne à pêche', g: 'f', keywords: ['pêche', 'canne', 'lac'] },
  'Wool Toque': { noun: 'Tuque en laine', g: 'f', keywords: ['tuque', 'chapeau', 'hiver'] },
  'Down Parka': { noun: 'Parka en duvet', g: 'm', keywords: ['parka', 'manteau', 'hiver'] },
  'Flannel Shirt': { noun: 'Chemise en flanelle', g: 'f', keywords: ['flanelle', 'chemise', 'carreaux'] },
  'Leather Mittens': {
    noun: 'Mitaines en cuir',
    g: 'f',
    plural: true,
    keywords: ['mitaines', 'gants', 'hiver'],
  },
  'Merino Socks': { noun: 'Bas en mérinos', g: 'm', plural: true, keywords: ['bas', 'mérinos', 'laine'] },
  'Rain Jacket': { noun: 'Manteau de pluie', g: 'm', keywords: ['manteau', 'pluie', 'imperméable'] },
  'Cedar Cutting Board': {
    noun: 'Planche à découper en cèdre',
    g: 'f',
    keywords: ['planche', 'découper', 'cuisine'],
  },
  'Beeswax Candle': { noun: "Bougie en cire d'abeille", g: 'f', keywords: ['bougie', 'cire', 'lumière'] },
  'Wool Blanket': { noun: 'Couverture en laine', g: 'f', keywords: ['couverture', 'laine', 'literie'] },
  'Stoneware Mug': { noun: 'Tasse en grès', g: 'f', keywords: ['tasse', 'café', 'poterie'] },
  'Cast Iron Skillet': { noun: 'Poêle en fonte', g: 'f', keywords: ['poêle', 'cuisine', 'fonte'] },
  'Hockey Stick': { noun: 'Bâton de hockey', g: 'm', keywords: ['hockey', 'bâton', 'glace'] },
  'Figure Skates': {
    noun: 'Patins artistiques',
    g: 'm',
    plural: true,
    keywords: ['patins', 'patinage', 'glace'],
  },
  'Curling Broom': { noun: 'Balai de curling', g: 'm', keywords: ['curling', 'balai', 'glace'] },
  'Lacrosse Stick': { noun: 'Bâton de crosse', g: 'm', keywords: ['crosse', 'bâton', 'terrain'] },
  'Field Guide to Birds (e-book)': {
    noun: 'Guide des oiseaux',
    g: 'm',
    suffix: ' (livre numérique)',
    keywords: ['oiseaux', 'guide', 'nature'],
  },
  'Canadian History Reader (e-book)': {
    noun: 'Histoire du Canada',
    g: 'f',
    suffix: ' (livre numérique)',
    keywords: ['histoire', 'canada', 'lecture'],
  },
  'Northern Cookbook (e-book)': {
    noun: 'Livre de recettes du Nord',
    g: 'm',
    suffix: ' (livre numérique)',
    keywords: ['recettes', 'cuisine', 'livre'],
  },
  'Paddling Maps (digital)': {
    noun: 'Cartes de canot',
    g: 'f',
    plural: true,
    suffix: ' (numériques)',
    keywords: ['cartes', 'canot', 'itinéraires'],
  },
  'Fiddle Album (download)': {
    noun: 'Album de violon',
    g: 'm',
    suffix: ' (téléchargement)',
    keywords: ['violon', 'folk', 'album'],
  },
  'East Coast Songs (download)': {
    noun: 'Chansons de la côte Est',
    g: 'f',
    plural: true,
    suffix: ' (téléchargement)',
    keywords: ['chansons', 'folk', 'maritime'],
  },
  'Prairie Soundscapes (download)': {
    noun: 'Paysages sonores des Prairies',
    g: 'm',
    plural: true,
    suffix: ' (téléchargement)',
    keywords: ['ambiance', 'nature', 'album'],
  },
  'Soapstone Carving': { noun: 'Sculpture en stéatite', g: 'f', keywords: ['sculpture', 'stéatite', 'art'] },
  'Hooked Rug': { noun: 'Tapis crocheté', g: 'm', keywords: ['tapis', 'crochet', 'textile'] },
  'Birch Bark Basket': {
    noun: "Panier d'écorce de bouleau",
    g: 'm',
    keywords: ['panier', 'bouleau', 'artisanat'],
  },
  'Landscape Print': { noun: 'Estampe de paysage', g: 'f', keywords: ['estampe', 'peinture', 'paysage'] },
};

/** Each adjective in French: masculine and feminine, singular and plural. */
const FRENCH_ADJECTIVES: Record<string, [string, string, string, string]> = {
  Handmade: ['fait main', 'faite main', 'faits main', 'faites main'],
  Organic: ['biologique', 'biologique', 'biologiques', 'biologiques'],
  Rustic: ['rustique', 'rustique', 'rustiques', 'rustiques'],
  Classic: ['classique', 'classique', 'classiques', 'classiques'],
  Premium: ['haut de gamme', 'haut de gamme', 'haut de gamme', 'haut de gamme'],
  'Small-batch': ['en petits lots', 'en petits lots', 'en petits lots', 'en petits lots'],
  Heritage: ["d'antan", "d'antan", "d'antan", "d'antan"],
  Local: ['local', 'locale', 'locaux', 'locales'],
  Artisan: ['artisanal', 'artisanale', 'artisanaux', 'artisanales'],
  Vintage: ["d'époque", "d'époque", "d'époque", "d'époque"],
};

const FRENCH_PHRASES = [
  'Fabriqué en petites séries par un atelier familial.',
  'Conçu pour durer tout un long hiver canadien.',
  "Un cadeau apprécié d'un océan à l'autre.",
  "Provenant d'artisans et de fermes indépendants.",
  'Emballé avec soin et expédié de notre boutique.',
  'Inspiré des fins de semaine au chalet et des matins au bord du lac.',
  'Chaque pièce est inspectée avant son départ.',
  'Fabriqué de façon éthique avec des matériaux traçables.',
];

/** Sellers whose shop is in Quebec write in French (with an English translation). */
const FRENCH_PROVINCES: ReadonlySet<Province> = new Set(['QC']);
/** The share of the other (English) products that also carry a French translation. */
const FRENCH_TRANSLATED = 0.25;

/**
 * The shops that set a shipping profile (docs/shipping.md): two with Canada Post's services
 * (priced by the rate table without credentials), one with its own flat rate; the others keep
 * the platform's flat rate.
 */
const SELLER_SHIPPING: Record<
  string,
  {
    postalCode: string;
    rates: 'carrier' | 'flat';
    services: string[];
    flatCents: number | null;
    freeOverCents: number | null;
  }
> = {
  'Toronto Home Goods': {
    postalCode: 'M5V 2T6',
    rates: 'carrier',
    services: ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'],
    flatCents: null,
    freeOverCents: null,
  },
  'Rocky Mountain Gear': {
    postalCode: 'T1L 1E4',
    rates: 'carrier',
    services: ['DOM.RP', 'DOM.EP', 'DOM.XP'],
    flatCents: null,
    freeOverCents: 15000,
  },
  'Boutique Laurentides': {
    postalCode: 'J8E 1T1',
    rates: 'flat',
    services: [],
    flatCents: 995,
    freeOverCents: 7500,
  },
};

export const SELLERS: Array<{ name: string; shop: string; province: Province }> = [
  { name: 'Émilie Tremblay', shop: 'Boutique Laurentides', province: 'QC' },
  { name: 'Liam MacDonald', shop: 'Cape Breton Makers', province: 'NS' },
  { name: 'Priya Singh', shop: 'Okanagan Pantry', province: 'BC' },
  { name: 'Noah Campbell', shop: 'Muskoka Outfitters', province: 'ON' },
  { name: 'Olivia Chen', shop: 'Toronto Home Goods', province: 'ON' },
  { name: 'Jacob Wilson', shop: 'Prairie Workshop', province: 'SK' },
  { name: 'Ava Fraser', shop: 'Rocky Mountain Gear', province: 'AB' },
  { name: 'Lucas Gagnon', shop: 'Atelier Québec', province: 'QC' },
  { name: 'Chloé Leblanc', shop: 'Fundy Coast Crafts', province: 'NB' },
  { name: 'Ethan Thompson', shop: 'Red River Traders', province: 'MB' },
  { name: 'Sophie Martin', shop: 'Island Preserves', province: 'PE' },
  { name: 'Mason Roberts', shop: 'Rock Island Music', province: 'NL' },
];

export interface SeededProduct {
  id: string;
  sellerId: string;
  categoryId: string;
  title: string;
  description: string;
  keywords: string[];
  imageUrls: string[];
  priceCents: number;
  stockQuantity: number;
  isDigital: boolean;
  isPerishable: boolean;
  weightKg: number | null;
  dims: [number, number, number] | null;
  unitsSold30d: number;
  ageSeconds: number;
  /** The language title, description and keywords are in; `translations` the other one's. */
  language: ContentLanguage;
  translations: ProductTranslations;
}

export const categoryId = (seed: number, slug: string) => `categories:${seededKey(seed, `category:${slug}`)}`;
export const sellerId = (seed: number, i: number) => `users:${seededKey(seed, `seller:${i}`)}`;

/** Where the sample images are served when no base is given: the service's default address. */
const DEFAULT_IMAGE_BASE = 'http://localhost:3000';

/** The sample shop's images, one per kind of product, made here: seeding needs no network. */
export const SAMPLE_IMAGES: ReadonlyMap<string, StoredImage> = new Map(
  CATEGORIES.flatMap((c) =>
    c.nouns.map(([noun]) => [`${c.slug}/${noun}`, sampleImage(c.slug, noun, c.colour)]),
  ),
);

/**
 * The i-th product of the catalog of `seed`: the same inputs always give the same product. Its
 * image is served by the service at `imageBase` (PUBLIC_BASE_URL).
 */
export function seededProduct(
  seed: number,
  i: number,
  imageBase = DEFAULT_IMAGE_BASE,
  /** The samples' raster files by key (storeSampleRasters), in place of their SVGs. */
  rasters?: ReadonlyMap<string, string>,
): SeededProduct {
  const r = prng(seed * 1_000_003 + i);
  const cat = r.pick(CATEGORIES);
  const [noun, nounKeywords, [lo, hi], kg] = r.pick(cat.nouns);
  const adjective = r.pick(ADJECTIVES);
  const [region] = r.pick(REGIONS);
  const seller = r.int(0, SELLERS.length - 1);
  const title = `${adjective} ${noun} from ${region}`;
  const phrases = [r.int(0, PHRASES.length - 1), r.int(0, PHRASES.length - 1)] as const;
  const perishable = cat.perishable === true && r.next() < 0.7;
  const english = {
    title,
    description: `${adjective} ${noun.toLowerCase()} from ${region}. ${PHRASES[phrases[0]]} ${PHRASES[phrases[1]]}`,
    keywords: [...nounKeywords, region.toLowerCase(), 'canada'],
  };
  const fr = FRENCH_NOUNS[noun]!;
  const adjectiveFr = FRENCH_ADJECTIVES[adjective]![(fr.g === 'f' ? 1 : 0) + (fr.plural ? 2 : 0)]!;
  const nameFr = `${fr.noun} ${adjectiveFr}${fr.suffix ?? ''}`;
  const french = {
    title: `${nameFr} — ${region}`,
    description: `${nameFr} — ${region}. ${FRENCH_PHRASES[phrases[0]]} ${FRENCH_PHRASES[phrases[1]]}`,
    keywords: [...fr.keywords, region.toLowerCase(), 'canada'],
  };
  const inFrench = FRENCH_PROVINCES.has(SELLERS[seller]!.province);
  return {
    id: `products:${seededKey(seed, `product:${i}`)}`,
    sellerId: sellerId(seed, seller),
    categoryId: categoryId(seed, cat.slug),
    ...(inFrench ? french : english),
    imageUrls: [
      `${imageBase}/images/${rasters?.get(`${cat.slug}/${noun}`) ?? SAMPLE_IMAGES.get(`${cat.slug}/${noun}`)!.name}`,
    ],
    priceCents: r.int(lo * 100, hi * 100 + 99),
    stockQuantity: r.int(0, 250),
    isDigital: cat.digital === true,
    isPerishable: perishable,
    weightKg: cat.digital ? null : Math.round(kg * (0.8 + r.next() * 0.4) * 100) / 100,
    dims: cat.digital ? null : [r.int(5, 120), r.int(2, 80), r.int(2, 60)],
    unitsSold30d: r.int(0, 500),
    ageSeconds: r.int(0, 365 * 86_400),
    // Last, so that the draws before it are as they were before products had languages.
    language: inFrench ? 'fr-CA' : 'en-CA',
    translations: inFrench ? { 'en-CA': english } : r.next() < FRENCH_TRANSLATED ? { 'fr-CA': french } : {},
  };
}

export interface SeedResult {
  categories: number;
  sellers: number;
  productsInserted: number;
  seconds: number;
}

const BATCH = 5_000;

/**
 * Inserts the sellers, categories and `count` products of the catalog of `seed`. Rows
 * already there (same seed) are left as they are.
 */
export async function seedCatalog(
  db: Db,
  opts: {
    seed: number;
    count: number;
    now?: Date;
    onProgress?: (done: number) => void;
    /** PUBLIC_BASE_URL: where the products' images are served. */
    imageBase?: string;
    /** The image store: the samples are stored there as WebP and the products show those (`portage seed`); without it, the SVGs. */
    imageStore?: ImageStore;
    /** Clothing sold in sizes S, M and L (`portage seed`): a sample shop with variants to pick. */
    sizes?: boolean;
    /**
     * Every shipped product sold in 1 to 2n-1 sizes, n on average (benchmarks: a catalog of
     * variants at scale). Applied to the products this call inserted.
     */
    variantsPerProduct?: number;
  },
): Promise<SeedResult> {
  const started = Date.now();
  await storeImages(db, [...SAMPLE_IMAGES.values()]);
  const rasters = opts.imageStore && (await storeSampleRasters(opts.imageStore, SAMPLE_IMAGES));
  const now = opts.now ?? new Date();
  for (const [i, s] of SELLERS.entries()) {
    const id = sellerId(opts.seed, i);
    const email = `seller${i + 1}.seed${opts.seed}@portage.example`;
    await db.execute(sql`insert into users (id, email, name, role, email_verified)
      values (${id}, ${email}, ${s.name}, 'seller', true) on conflict do nothing`);
    await db.execute(sql`insert into seller_profiles (user_id, shop_name, province)
      values (${id}, ${s.shop}, ${s.province}) on conflict do nothing`);
    const shipping = SELLER_SHIPPING[s.shop];
    if (shipping) {
      await db.execute(sql`insert into seller_shipping (seller_id, origin_postal_code, origin_province,
          handling_days, rates, services, flat_cents, free_over_cents, parcel_length_cm, parcel_width_cm,
          parcel_height_cm, parcel_weight_kg, updated_at)
        values (${id}, ${shipping.postalCode}, ${s.province}, 1, ${shipping.rates},
          ${`{${shipping.services.join(',')}}`}::text[], ${shipping.flatCents}, ${shipping.freeOverCents},
          30, 23, 13, 0.5, ${now}) on conflict do nothing`);
    }
  }
  for (const c of CATEGORIES) {
    const translations = JSON.stringify({ 'fr-CA': { name: c.nameFr } });
    await db.execute(sql`insert into categories (id, name, slug, translations)
      values (${categoryId(opts.seed, c.slug)}, ${c.name}, ${c.slug}, ${translations}::jsonb) on conflict do nothing`);
  }
  let inserted = 0;
  for (let start = 0; start < opts.count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, opts.count - start) }, (_, k) =>
      seededProduct(opts.seed, start + k, opts.imageBase, rasters),
    );
    const nowSec = Math.floor(now.getTime() / 1000);
    const rows = batch.map((p) => ({
      id: p.id,
      sizes: sizesOf(p, opts.variantsPerProduct),
      seller_id: p.sellerId,
      category_id: p.categoryId,
      title: p.title,
      description: p.description,
      keywords: p.keywords,
      image_urls: p.imageUrls,
      price_cents: p.priceCents,
      stock_quantity: p.stockQuantity,
      is_digital: p.isDigital,
      is_perishable: p.isPerishable,
      weight_kg: p.weightKg,
      width_cm: p.dims?.[0] ?? null,
      height_cm: p.dims?.[1] ?? null,
      depth_cm: p.dims?.[2] ?? null,
      units_sold: p.unitsSold30d,
      created: nowSec - p.ageSeconds,
      language: p.language,
      translations: p.translations,
    }));
    // One statement and one parameter per batch: the rows travel as a JSON array.
    const [res] = await rowsOf<{ made: number }>(
      db,
      sql`
      with t as (
        select * from json_to_recordset(${JSON.stringify(rows)}::json) as t(id text, seller_id text, category_id text,
          title text, description text, keywords text[], image_urls text[], price_cents int, stock_quantity int,
          is_digital boolean, is_perishable boolean, weight_kg float8, width_cm float8, height_cm float8,
          depth_cm float8, units_sold int, created bigint, language text, translations jsonb, sizes int)
      ), made as (
        insert into products (id, seller_id, category_id, title, description, keywords, image_urls, price_cents,
          price_max_cents, status, is_digital, is_perishable, weight_kg, width_cm, height_cm, depth_cm,
          units_sold_30d, created_at, updated_at, language, translations, options)
        select id, seller_id, category_id, title, description, keywords, image_urls, price_cents,
          round(price_cents * (1 + 0.05 * (sizes - 1)))::int,
          'active', is_digital, is_perishable, weight_kg, width_cm, height_cm, depth_cm, units_sold,
          to_timestamp(created), to_timestamp(created), language, translations,
          case when sizes > 1 then jsonb_build_array(jsonb_build_object('name', 'Size', 'values',
            (select jsonb_agg(s order by n) from jsonb_array_elements_text(${SIZES_JSON}::jsonb)
               with ordinality as z(s, n) where n <= sizes))) else '[]'::jsonb end
        from t
        on conflict (id) do nothing
        returning id
      )
      -- Each product's variants: the first under its own id (its SKU the id's record part, a v
      -- before one starting with _ or -, as catalog/variants.ts makes them); with
      -- sizes (benchmarks), the next ones 5% dearer each, sharing its stock, ids drawn from its id.
      -- (A data-modifying WITH runs to completion whether or not the final select reads it.)
      , variants as (
      insert into product_variants (id, product_id, seller_id, sku, option_values, position, price_cents,
        stock_quantity, created_at, updated_at)
      select case when size.n = 1 then t.id else 'variants:' || left(translate(encode(sha256(convert_to(
          t.id || ':' || size.s, 'UTF8')), 'base64'), '+/=', '-_x'), 20) end,
        t.id, t.seller_id,
        case when split_part(t.id, ':', 2) ~ '^[A-Za-z0-9]' then '' else 'v' end
          || split_part(t.id, ':', 2) || case when size.n = 1 then '' else '-' || size.s end,
        case when t.sizes > 1 then array[size.s] else '{}'::text[] end, size.n - 1,
        round(t.price_cents * (1 + 0.05 * (size.n - 1)))::int,
        case when t.sizes > 1 then greatest(t.stock_quantity / t.sizes, 1) else t.stock_quantity end,
        to_timestamp(t.created), to_timestamp(t.created)
      from t join made on made.id = t.id
        cross join lateral jsonb_array_elements_text(${SIZES_JSON}::jsonb) with ordinality as size(s, n)
      where size.n <= t.sizes)
      select count(*)::int as made from made`,
    );
    inserted += res?.made ?? 0;
    opts.onProgress?.(start + batch.length);
  }
  if (opts.sizes) await sizeClothing(db, opts.seed);
  await db.execute(sql`analyze products`);
  return {
    categories: CATEGORIES.length,
    sellers: SELLERS.length,
    productsInserted: inserted,
    seconds: (Date.now() - started) / 1000,
  };
}

const BENCH_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL', '3XL', '4XL', '5XL'];
const SIZES_JSON = JSON.stringify(BENCH_SIZES);

/**
 * How many sizes a product is sold in: 1, or with `perProduct` (benchmarks' catalog of variants)
 * for a shipped product 1 + (its id's first hash byte mod 2n-1), n on average, drawn from the id
 * so that a seed makes the same catalog every time.
 */
function sizesOf(p: SeededProduct, perProduct = 1): number {
  if (perProduct <= 1 || p.isDigital) return 1;
  const spread = Math.min(2 * Math.round(perProduct) - 1, BENCH_SIZES.length);
  return 1 + (createHash('sha256').update(p.id).digest()[0]! % spread);
}

/**
 * The seed's clothing in sizes: each product's one variant becomes its S, and an M (same price) and
 * an L (10% more) are added, each with a third of its stock, ids derived from the product's so that
 * a seed makes the same catalog every time. One statement for every product of the seed.
 */
async function sizeClothing(db: Db, seed: number) {
  const sellers = SELLERS.map((_s, i) => sellerId(seed, i));
  await db.execute(sql`
    with clothing as (
      update products p set options = '[{"name":"Size","values":["S","M","L"]}]'::jsonb
      from categories c
      where c.id = p.category_id and c.slug = 'clothing' and p.options = '[]'::jsonb
        and p.seller_id in (select jsonb_array_elements_text(${JSON.stringify(sellers)}::jsonb))
      returning p.id
    ), small as (
      update product_variants v set option_values = '{S}',
        stock_quantity = greatest(v.stock_quantity / 3, 1)
      from clothing where v.id = clothing.id
      returning v.*
    )
    insert into product_variants (id, product_id, seller_id, sku, option_values, position, price_cents,
      stock_quantity, created_at, updated_at)
    select 'variants:' || left(translate(encode(sha256(convert_to(small.id || ':' || size.name, 'UTF8')), 'base64'),
        '+/=', '-_x'), 20),
      small.product_id, small.seller_id, small.sku || '-' || size.name, array[size.name], size.position,
      round(small.price_cents * size.factor)::int, small.stock_quantity, small.created_at, small.updated_at
    from small, (values ('M', 1, 1.0), ('L', 2, 1.1)) as size(name, position, factor)`);
}
