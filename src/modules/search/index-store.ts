// The search index's data: per entry (a version of an active product's searchable text) the
// columns that filters, facets and sorts need, in typed arrays; per lexeme its postings
// (lexicon.ts). Memory stays bounded under any sequence of writes (docs/decisions.md "Search"):
//
// - A product whose text changes gets a new entry; the old one is dead. Dead entries are
//   reclaimed while serving by a sweep that walks the lexicon a slice at a time, dropping
//   dead entries' postings and the words left with none. A sweep starts when garbage (dead
//   postings, and words added since the last sweep) passes a quarter of the live data, and
//   advances in step with the garbage being made (and a slice per refresh), so that it ends
//   before garbage grows by half as much again; no step stalls a query.
// - An entry's ordinal is reused once a completed sweep has dropped every posting naming it
//   (entries dead when the sweep started), so the columns never outgrow the peak catalog.

//
// A product's active variants (what variant clauses, the sort by price and the variant facets
// read) cost nothing more for the common product sold one way: its price column and two bits of
// `flags`. Others have a block in one shared Int32Array pool: [options, variants, the options'
// names, then per variant its price, 1 if it has free units, and a slot per option value (the
// value as written under that option, interned, with its folded value and its (option, value)
// pair for the facets)]; a rewritten block's old words are garbage, compacted away when they
// pass the live ones.
//
// A search reads a block only when it must (blocks are scattered: each read is a cache miss).
// Per entry, `summary` holds what the fixed facets need of its variants (the price buckets they
// fall in, whether one has free units, whether all do), `price` and `maxPrice` their lowest and
// highest prices, and `shape` the set of its option names and values, interned once for every
// product sold in the same sizes (a handful of shapes for a whole catalog). Without variant
// clauses a match counts with two increments, and the shapes' names and values once per query
// after the matches; with them, the summaries decide most entries (all variants pass, or none).

import { priceBucket } from './engine.ts';
import { foldOption } from './filters.ts';
import { Lexicon, type Term } from './lexicon.ts';

/** A product's row as the index reads it. */
export interface IndexRow {
  id: string;
  category_id: string | null;
  seller_id: string;
  price_cents: number;
  is_digital: boolean;
  is_perishable: boolean;
  rating: number;
  units_sold_30d: number;
  created: number;
  status: string;
  /** changed_at in microseconds since the epoch (a float8: exact up to 2^53). */
  changed: number;
  /** The search vector as text: `'lexeme':1A,5C 'other':3`. */
  doc: string;
  /** The product's options' names, in order. */
  option_names: string[];
  /** Its active variants: price, whether it has free units, option values in the options' order. */
  variants: Array<[number, boolean, string[]]>;
  /** Offered to AI agents (products.agent_channels); absent: offered. */
  agent_channels?: boolean;
}

/** flags: the product's one variant has free units (no block). */
export const IN_STOCK = 32;
/** flags: the product's variants are in the pool, at `block[ord]`. */
export const BLOCK = 64;
/** flags: the product has no active variant: it fails every variant clause. */
export const NO_VARIANT = 128;

/** A facet key's bit: in stock (with 1 digital, 2 perishable, and 4 << bucket for each price bucket). */
export const KEY_STOCK = 128;
/** A summary's bit (not a facet key's): every variant has free units. */
export const ALL_IN_STOCK = 1;
/** The facet key bits of a variant: its price's bucket and whether it has free units. */
export const variantKey = (price: number, inStock: boolean) =>
  (4 << priceBucket(price)) | (inStock ? KEY_STOCK : 0);

/**
 * What a word costs on its own (its map entry, object, postings array and place in the
 * sorted lists), counted in postings (4 bytes each): garbage is dead postings plus the words
 * added since the last sweep, most of which come from rewrites that killed an entry.
 */
const WORD_COST = 96;
/** A sweep starts when garbage passes this share of the live data... */
const GARBAGE_SHARE = 0.25;
/** ...and this much, so that a small catalog does not sweep on every change. */
const GARBAGE_MIN = 4096;
/** Postings swept at least per refresh, so that a sweep also ends without new writes. */
const SWEEP_SLICE = 65_536;

const FREE = 0;
const LIVE = 1;
const DEAD = 2;

/** Interns strings (category and seller ids, option names and values) as small integers. */
export class Dictionary {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  ord(value: string): number {
    let o = this.index.get(value);
    if (o === undefined) {
      o = this.values.length;
      this.values.push(value);
      this.index.set(value, o);
    }
    return o;
  }
  find(value: string): number | undefined {
    return this.index.get(value);
  }
}

export class IndexStore {
  /** Entries ever used: ordinals 0..size-1 (some free). */
  size = 0;
  private capacity = 0;
  ids: string[] = [];
  state = new Uint8Array(0);
  category = new Int32Array(0);
  seller = new Int32Array(0);
  price = new Int32Array(0);
  /**
   * Bit 1 digital, bit 2 perishable, bits 3-5 the price facet's bucket (of `price`), then
   * IN_STOCK, BLOCK, NO_VARIANT: one read per match for the fixed facets.
   */
  flags = new Uint8Array(0);
  /** With BLOCK: where the entry's variants start in `pool`. */
  block = new Int32Array(0);
  /** The facet key bits of all its active variants (price buckets, in stock): the fixed facets without variant clauses. */
  summary = new Uint8Array(0);
  /** With BLOCK: its variants' highest price (`price` holds the lowest). */
  maxPrice = new Int32Array(0);
  /** With BLOCK: its shape, an ordinal into `shapeStart`. */
  shape = new Int32Array(0);
  /**
   * Shapes: at `shapeData[shapeStart[s]]`, [k, the k options' names (optionText ordinals),
   * m, its m distinct slots]. Interned by their words; made again from the live blocks when
   * the pool compacts, so that dead shapes do not pile up.
   */
  private shapes = new Dictionary();
  shapeStart = new Int32Array(64);
  shapeData = new Int32Array(256);
  private shapeEnd = 0;
  pool = new Int32Array(1024);
  private poolEnd = 0;
  private poolGarbage = 0;
  /** Option names and values as written (trimmed); `folded[o]` is the ordinal of foldOption(text). */
  optionText = new Dictionary();
  optionFolded = new Dictionary();
  folded = new Int32Array(256);
  /**
   * A block's values are slots: a value as written under an option (by folded name). Per slot
   * its folded value (filters), its pair of folded name and value (facet counts) and its text.
   */
  private slots = new Dictionary();
  slotFolded = new Int32Array(256);
  slotPair = new Int32Array(256);
  slotText = new Int32Array(256);
  private pairs = new Dictionary();
  /** Per pair, its folded option name. */
  pairName = new Int32Array(256);
  rating = new Float64Array(0);
  /** 1: kept out of agent channels (products.agent_channels false); agents' queries pass over it. */
  agentsOff = new Uint8Array(0);
  sold = new Int32Array(0);
  created = new Float64Array(0);
  private termCount = new Int32Array(0);
  readonly lexicon = new Lexicon();
  readonly categories = new Dictionary();
  readonly sellers = new Dictionary();
  /** Bumped by every change a query could see. */
  version = 0;

  // Per live product: its entry, a hash of its searchable text, when it last changed.
  private readonly byId = new Map<string, { ord: number; docHash: number; changed: number }>();
  private readonly free: number[] = [];
  private livePostings = 0;
  private deadPostings = 0;
  private deadEntries = 0;
  /** Entries killed since the running sweep started (or since the last one ended). */
  private killedSince: number[] = [];
  private sweep: {
    terms: Iterator<Term>;
    reclaims: number[];
    /** Postings swept per unit of garbage made while it runs. */
    pace: number;
    /** Garbage at the last step. */
    garbage: number;
  } | null = null;
  /** Lexicon size when the last sweep ended (or the load): words beyond it count as garbage. */
  private wordsAfterSweep = 0;
  private sweeps = 0;

  stats() {
    return {
      live: this.byId.size,
      dead: this.deadEntries,
      lexemes: this.lexicon.size,
      postings: this.livePostings,
      deadPostings: this.deadPostings,
      entries: this.size,
      sweeps: this.sweeps,
      garbage: this.garbage(),
      lexicon: this.lexicon.stats(),
    };
  }

  /**
   * Per seller number, 1 when the seller's shop is not open (pending, suspended, or their account
   * suspended): their entries stay, and queries pass over them. Null when there is none, the
   * common case, which costs a query nothing.
   */
  hidden: Uint8Array | null = null;
  private hiddenKey = '';

  /** The sellers whose products queries must pass over, as the database lists them now. */
  setHidden(sellerIds: string[]): void {
    const key = [...sellerIds].sort().join(',');
    if (key === this.hiddenKey) return;
    this.hiddenKey = key;
    if (sellerIds.length === 0) {
      this.hidden = null;
    } else {
      const ords = sellerIds.map((id) => this.sellers.ord(id));
      const hidden = new Uint8Array(this.sellers.values.length);
      for (const o of ords) hidden[o] = 1;
      this.hidden = hidden;
    }
    this.version++;
  }

  /** The changed_at last applied for a product, if it is in the index. */
  changedOf(id: string): number | undefined {
    return this.byId.get(id)?.changed;
  }

  /** Applies a product's row; answers whether anything a query sees changed. */
  apply(row: IndexRow): boolean {
    const known = this.byId.get(row.id);
    if (known && known.changed === row.changed) return false;
    if (row.status !== 'active') {
      if (!known) return false;
      this.kill(row.id, known.ord);
      return true;
    }
    // Same searchable text: columns change in place; new text: a new entry, the old one dies.
    const docHash = fnv1a(row.doc);
    let ord: number;
    if (known && known.docHash === docHash) {
      ord = known.ord;
    } else {
      if (known) this.kill(row.id, known.ord);
      ord = this.append(row.id, row.doc);
    }
    this.category[ord] = row.category_id === null ? -1 : this.categories.ord(row.category_id);
    this.seller[ord] = this.sellers.ord(row.seller_id);
    this.price[ord] = row.price_cents;
    const variantFlags = this.storeVariants(ord, known?.ord === ord, row);
    this.flags[ord] =
      (row.is_digital ? 1 : 0) |
      (row.is_perishable ? 2 : 0) |
      (priceBucket(this.price[ord]!) << 2) |
      variantFlags;
    // Without a block, the product's price and stock bit stand for its variant (none: its price alone).
    if ((variantFlags & BLOCK) === 0) {
      this.summary[ord] = variantKey(this.price[ord]!, (variantFlags & IN_STOCK) !== 0);
    }
    this.rating[ord] = Number(row.rating);
    this.agentsOff[ord] = row.agent_channels === false ? 1 : 0;
    this.sold[ord] = row.units_sold_30d;
    this.created[ord] = Number(row.created);
    this.byId.set(row.id, { ord, docHash, changed: row.changed });
    this.version++;
    return true;
  }

  /** Loading: words are collected, then sorted once. */
  beginLoad() {
    this.lexicon.beginBulk();
  }
  endLoad() {
    this.lexicon.endBulk();
    this.wordsAfterSweep = this.lexicon.size;
    // The pool doubled while loading: its slack goes (the next block grows it again).
    this.pool = this.pool.slice(0, this.poolEnd + 1024);
  }

  /** Writes the entry's variants (a block when needed), answering the flags they set. */
  private storeVariants(ord: number, rewrite: boolean, row: IndexRow): number {
    if (rewrite && (this.flags[ord]! & BLOCK) !== 0) this.dropBlock(ord);
    const variants = row.variants;
    if (variants.length === 0) return NO_VARIANT;
    const names = row.option_names;
    if (variants.length === 1 && names.length === 0) {
      // The product's price is its one variant's.
      this.price[ord] = variants[0]![0];
      return variants[0]![1] ? IN_STOCK : 0;
    }
    const k = names.length;
    const len = 2 + k + variants.length * (2 + k);
    if (this.poolEnd + len > this.pool.length) this.growPool(len);
    const pool = this.pool;
    let at = this.poolEnd;
    this.block[ord] = at;
    pool[at++] = k;
    pool[at++] = variants.length;
    const folded: number[] = [];
    for (const name of names) {
      pool[at] = this.option(name);
      folded.push(this.folded[pool[at++]!]!);
    }
    let lowest = Number.POSITIVE_INFINITY;
    let highest = Number.NEGATIVE_INFINITY;
    let key = 0;
    let allInStock = ALL_IN_STOCK;
    for (const [price, inStock, values] of variants) {
      pool[at++] = price;
      pool[at++] = inStock ? 1 : 0;
      for (let j = 0; j < k; j++) pool[at++] = this.slot(folded[j]!, values[j] ?? '');
      if (price < lowest) lowest = price;
      if (price > highest) highest = price;
      key |= variantKey(price, inStock);
      if (!inStock) allInStock = 0;
    }
    this.price[ord] = lowest;
    this.maxPrice[ord] = highest;
    this.summary[ord] = key | allInStock;
    this.shape[ord] = this.shapeOf(pool, this.block[ord]!);
    this.poolEnd = at;
    return BLOCK;
  }

  /** The shape of the block at `at` of `pool`: its options' names and its distinct slots, interned. */
  private shapeOf(pool: Int32Array, at: number): number {
    const k = pool[at]!;
    const n = pool[at + 1]!;
    const slots = new Set<number>();
    for (let v = 0, base = at + 2 + k; v < n; v++, base += 2 + k) {
      for (let j = 0; j < k; j++) slots.add(pool[base + 2 + j]!);
    }
    const words = [k, ...pool.subarray(at + 2, at + 2 + k), slots.size, ...[...slots].sort((a, b) => a - b)];
    const known = this.shapes.values.length;
    const shape = this.shapes.ord(words.join(','));
    if (shape < known) return shape;
    this.shapeStart = room(this.shapeStart, shape);
    this.shapeStart[shape] = this.shapeEnd;
    if (this.shapeEnd + words.length > this.shapeData.length) {
      const data = new Int32Array(2 * (this.shapeEnd + words.length));
      data.set(this.shapeData);
      this.shapeData = data;
    }
    this.shapeData.set(words, this.shapeEnd);
    this.shapeEnd += words.length;
    return shape;
  }

  get shapeCount(): number {
    return this.shapes.values.length;
  }

  private option(text: string): number {
    const o = this.optionText.ord(text);
    this.folded = room(this.folded, o);
    this.folded[o] = this.optionFolded.ord(foldOption(text));
    return o;
  }

  private slot(name: number, text: string): number {
    const known = this.slots.values.length;
    const slot = this.slots.ord(`${name}\n${text}`);
    if (slot < known) return slot;
    const o = this.option(text);
    const pair = this.pairs.ord(`${name}\n${this.folded[o]}`);
    this.pairName = room(this.pairName, pair);
    this.pairName[pair] = name;
    this.slotFolded = room(this.slotFolded, slot);
    this.slotPair = room(this.slotPair, slot);
    this.slotText = room(this.slotText, slot);
    this.slotFolded[slot] = this.folded[o]!;
    this.slotPair[slot] = pair;
    this.slotText[slot] = o;
    return slot;
  }

  get pairCount(): number {
    return this.pairs.values.length;
  }

  /** Words of a block: its header, names, and per variant price, stock and values. */
  blockLength(at: number): number {
    const k = this.pool[at]!;
    return 2 + k + this.pool[at + 1]! * (2 + k);
  }

  private dropBlock(ord: number) {
    this.poolGarbage += this.blockLength(this.block[ord]!);
    this.flags[ord] = this.flags[ord]! & ~BLOCK;
  }

  /** Room for `need` more words: the live blocks compacted when garbage passes them, else a bigger pool. */
  private growPool(need: number) {
    const live = this.poolEnd - this.poolGarbage;
    const pool = new Int32Array(
      this.poolGarbage > live ? Math.max(1024, 2 * (live + need)) : 2 * this.pool.length + need,
    );
    // Compacting, the option words are interned again from the live blocks alone: a seller
    // renaming values would otherwise grow the dictionaries (and every facet count's arrays)
    // without end.
    const compacting = this.poolGarbage > live;
    const text = this.optionText.values;
    const slotText = this.slotText;
    if (compacting) this.resetOptionWords();
    let at = 0;
    for (let d = 0; d < this.size; d++) {
      if (this.state[d] !== LIVE || (this.flags[d]! & BLOCK) === 0) continue;
      const from = this.block[d]!;
      const len = this.blockLength(from);
      pool.set(this.pool.subarray(from, from + len), at);
      if (compacting) {
        this.reintern(pool, at, text, slotText);
        this.shape[d] = this.shapeOf(pool, at);
      }
      this.block[d] = at;
      at += len;
    }
    this.pool = pool;
    this.poolEnd = at;
    this.poolGarbage = 0;
  }

  private resetOptionWords() {
    this.optionText = new Dictionary();
    this.optionFolded = new Dictionary();
    this.folded = new Int32Array(256);
    this.slots = new Dictionary();
    this.slotFolded = new Int32Array(256);
    this.slotPair = new Int32Array(256);
    this.slotText = new Int32Array(256);
    this.pairs = new Dictionary();
    this.pairName = new Int32Array(256);
    this.shapes = new Dictionary();
    this.shapeStart = new Int32Array(64);
    this.shapeData = new Int32Array(256);
    this.shapeEnd = 0;
  }

  /** The block at `at` of `pool`, its names and values given the ordinals of the fresh dictionaries. */
  private reintern(pool: Int32Array, at: number, text: string[], slotText: Int32Array) {
    const k = pool[at]!;
    const n = pool[at + 1]!;
    const folded: number[] = [];
    for (let j = 0; j < k; j++) {
      const o = this.option(text[pool[at + 2 + j]!]!);
      pool[at + 2 + j] = o;
      folded.push(this.folded[o]!);
    }
    for (let v = 0, base = at + 2 + k; v < n; v++, base += 2 + k) {
      for (let j = 0; j < k; j++) {
        pool[base + 2 + j] = this.slot(folded[j]!, text[slotText[pool[base + 2 + j]!]!]!);
      }
    }
  }

  private kill(id: string, ord: number) {
    if ((this.flags[ord]! & BLOCK) !== 0) this.dropBlock(ord);
    this.version++;
    this.state[ord] = DEAD;
    this.byId.delete(id);
    this.deadEntries++;
    const n = this.termCount[ord]!;
    this.livePostings -= n;
    this.deadPostings += n;
    this.killedSince.push(ord);
  }

  private append(id: string, doc: string): number {
    let ord = this.free.pop();
    if (ord === undefined) {
      if (this.size === this.capacity) this.grow(Math.max(1024, this.capacity * 2));
      ord = this.size++;
    }
    this.ids[ord] = id;
    this.state[ord] = LIVE;
    let n = 0;
    // tsvector text: 'lexeme':1A,5C 'other':3 — quotes doubled inside; no letter means D.
    for (const m of doc.matchAll(/'((?:[^']|'')+)':([0-9A-D,]+)/g)) {
      const lexeme = m[1]!.replaceAll("''", "'");
      const positions = m[2]!;
      const weight = positions.includes('A')
        ? 3
        : positions.includes('B')
          ? 2
          : positions.includes('C')
            ? 1
            : 0;
      this.lexicon.getOrAdd(lexeme).add(ord, weight);
      n++;
    }
    this.termCount[ord] = n;
    this.livePostings += n;
    return ord;
  }

  private grow(capacity: number) {
    if (capacity > 1 << 29) throw new Error('search index full: postings pack ordinals in 29 bits');
    const grow = <T extends Int32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T) => {
      const b = make(capacity);
      b.set(a as never);
      return b;
    };
    this.state = grow(this.state, (n) => new Uint8Array(n));
    this.category = grow(this.category, (n) => new Int32Array(n));
    this.seller = grow(this.seller, (n) => new Int32Array(n));
    this.price = grow(this.price, (n) => new Int32Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    this.block = grow(this.block, (n) => new Int32Array(n));
    this.summary = grow(this.summary, (n) => new Uint8Array(n));
    this.maxPrice = grow(this.maxPrice, (n) => new Int32Array(n));
    this.shape = grow(this.shape, (n) => new Int32Array(n));
    this.rating = grow(this.rating, (n) => new Float64Array(n));
    this.agentsOff = grow(this.agentsOff, (n) => new Uint8Array(n));
    this.sold = grow(this.sold, (n) => new Int32Array(n));
    this.created = grow(this.created, (n) => new Float64Array(n));
    this.termCount = grow(this.termCount, (n) => new Int32Array(n));
    this.capacity = capacity;
  }

  isLive(ord: number): boolean {
    return this.state[ord] === LIVE;
  }

  private garbage(): number {
    return this.deadPostings + WORD_COST * Math.max(0, this.lexicon.size - this.wordsAfterSweep);
  }

  /**
   * Advances the reclaiming sweep (after each refresh): by the garbage made since the last
   * step times the sweep's pace, and at least a slice. Starts a sweep when garbage passes a
   * share of the live data; the pace makes the walk end before garbage grows by half that
   * share again, so garbage stays under 1.5 times the share, whatever the writes.
   */
  reclaim() {
    let budget = SWEEP_SLICE;
    if (this.sweep) {
      budget = Math.max(budget, (this.garbage() - this.sweep.garbage) * this.sweep.pace);
    }
    while (budget > 0) {
      if (!this.sweep) {
        const threshold = Math.max(
          GARBAGE_MIN,
          GARBAGE_SHARE * (this.livePostings + WORD_COST * this.wordsAfterSweep),
        );
        if (this.garbage() < threshold || this.killedSince.length === 0) return;
        // Entries dead now are named only by terms that exist now: once the walk over the
        // lexicon has passed them all, their ordinals are free.
        const walk = this.livePostings + this.deadPostings + this.lexicon.size;
        this.sweep = {
          terms: this.lexicon.values(),
          reclaims: this.killedSince,
          pace: Math.ceil((2 * walk) / threshold),
          garbage: 0,
        };
        this.killedSince = [];
      }
      const next = this.sweep.terms.next();
      if (next.done) {
        this.endSweep(this.sweep.reclaims);
        continue;
      }
      const term = next.value;
      budget -= term.n + 1;
      term.retain((ord) => this.state[ord] !== DEAD);
      if (term.n === 0) this.lexicon.remove(term);
    }
    if (this.sweep) this.sweep.garbage = this.garbage();
  }

  private endSweep(reclaims: number[]) {
    for (const ord of reclaims) {
      this.state[ord] = FREE;
      this.ids[ord] = '';
      this.deadEntries--;
      this.deadPostings -= this.termCount[ord]!;
      this.termCount[ord] = 0;
      this.free.push(ord);
    }
    this.sweep = null;
    this.sweeps++;
    this.wordsAfterSweep = this.lexicon.size;
  }
}

/** `a`, or a copy twice as long when `i` is past its end. */
function room(a: Int32Array<ArrayBuffer>, i: number): Int32Array<ArrayBuffer> {
  if (i < a.length) return a;
  const b = new Int32Array(Math.max(2 * a.length, i + 1));
  b.set(a);
  return b;
}

/** 32-bit FNV-1a: tells whether a product's searchable text changed. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
