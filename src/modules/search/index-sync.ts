import type { Db } from '../../db/index.ts';
import type { IndexRow, IndexStore } from './index-store.ts';
import {
  activeIndexRowsAfter,
  clockMicros,
  hiddenSellers,
  indexRowsByIds,
  productsChangedSince,
} from './queries.ts';

/** Rows re-read on every refresh: changes committed up to this long after they were stamped are still seen. */
const OVERLAP_MS = 30_000;
const LOAD_BATCH = 20_000;

export class IndexSync {
  /**
   * The database's clock (microseconds) at the last read: every change stamped before it, less
   * the overlap, has been read. It is the clock, not the newest stamp seen, so that after a burst
   * of writes the rows of its last 30 s are re-read for 30 s, not on every search until the next
   * write.
   */
  private watermark = 0;
  /** How many changed rows the last refresh looked at (stats). */
  lastRefreshRows = 0;
  private readonly overlapUs: number;
  private refreshing: Promise<void> | null = null;
  private nextRefresh: Promise<void> | null = null;

  constructor(
    private readonly store: IndexStore,
    overlapMs = OVERLAP_MS,
  ) {
    this.overlapUs = overlapMs * 1000;
  }

  /** Loads every active product, in batches by id. */
  async build(db: Db): Promise<void> {
    const start = await clockMicros(db);
    this.store.beginLoad();
    try {
      let last = '';
      for (;;) {
        const rows = await activeIndexRowsAfter(db, last, LOAD_BATCH);
        for (const row of rows) this.store.apply(row);
        if (rows.length < LOAD_BATCH) break;
        last = rows[rows.length - 1]!.id;
      }
    } finally {
      this.store.endLoad();
    }
    this.store.setHidden(await hiddenSellers(db));
    this.watermark = start;
  }

  /**
   * Applies what changed since the last look. A read already under way may have started
   * before the caller's own write committed, so a caller waits for a read that starts after
   * it called; callers arriving meanwhile share that next read.
   */
  refresh(db: Db): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.readChanges(db).finally(() => {
        this.refreshing = null;
      });
      return this.refreshing;
    }
    this.nextRefresh ??= this.refreshing
      .catch(() => {})
      .then(() => {
        this.nextRefresh = null;
        return this.refresh(db);
      });
    return this.nextRefresh;
  }

  /**
   * First the ids and stamps of the recent rows (small: the overlap re-reads every row
   * changed in its 30 s), then the whole rows of those the index does not have as they are.
   */
  private async readChanges(db: Db): Promise<void> {
    const since = (this.watermark - this.overlapUs) / 1e6;
    // The clock is read before the scan, in the same statement: one row even when nothing changed.
    const read = await productsChangedSince(db, since);
    const recent = read.filter((r): r is typeof r & { id: string } => r.id !== null);
    this.lastRefreshRows = recent.length;
    const wanted: string[] = [];
    for (const r of recent) {
      const known = this.store.changedOf(r.id);
      if (known === r.changed) continue;
      if (r.active) wanted.push(r.id);
      else if (known !== undefined) this.store.apply({ ...GONE, id: r.id, changed: r.changed });
    }
    for (let i = 0; i < wanted.length; i += LOAD_BATCH) {
      // One text parameter per batch (ids hold no comma), however many rows changed.
      const ids = wanted.slice(i, i + LOAD_BATCH).join(',');
      const rows = await indexRowsByIds(db, ids);
      for (const row of rows) this.store.apply(row);
    }
    if (read[0]) {
      this.store.setHidden(read[0].hidden);
      this.watermark = Math.max(this.watermark, read[0].now);
    }
    this.store.reclaim();
  }
}

/** A row that is no longer active: all the index needs to drop it. */
const GONE: IndexRow = {
  id: '',
  category_id: null,
  seller_id: '',
  price_cents: 0,
  is_digital: false,
  is_perishable: false,
  rating: 0,
  units_sold_30d: 0,
  created: 0,
  status: 'inactive',
  changed: 0,
  doc: '',
  option_names: [],
  variants: [],
};
