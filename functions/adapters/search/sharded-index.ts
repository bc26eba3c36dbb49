import { randomUUID } from 'node:crypto';
import type * as lancedb from '@lancedb/lancedb';
import { Field, Float64, Schema, Utf8 } from 'apache-arrow';
import type { SearchDocument } from '../../core/search/document';
import { NOTE_ID_POSITIONS, noteIdPosition } from '../../core/search/filter';
import type { IndexWriter, NoteVectors } from '../../core/search/indexer';
import type { SearchQuery } from '../../core/search/query';
import type { RelatedIndex } from '../../core/search/related';
import {
  type Build,
  type BuildRequest,
  buildSet,
  buildSets,
  initialLayout,
  type Layout,
  liveSet,
  liveSets,
  planBuild,
  switchedLayout,
  writeSets,
} from '../../core/search/shards';
import { backoff } from '../dynamo/transactions';
import { connectIndex, type IndexedVersion, type IndexLocation, LanceSearchIndex } from './lance-index';

/**
 * The search index of the service: N shards (core/search/shards.ts), each a LanceSearchIndex (a set of
 * tables with its own recent table, fold and indexes) in one LanceDB location. A one-row `layout`
 * table says which generation of each shard is live and which build is under way; it changes only
 * by compare-and-set on its revision, so two rebuilds cannot both start, and a build's switch is one
 * commit that readers and writers see at their next call. Reads open the user's live shard; writes go
 * to it and, while a build rebuilds that shard, to the build's table set too.
 */

const LAYOUT_TABLE = 'layout';
const WATERMARK_TABLE = 'watermarks';
const LAYOUT_KEY = 'layout';

const layoutSchema = new Schema([
  new Field('key', new Utf8(), false),
  new Field('rev', new Float64(), false),
  new Field('doc', new Utf8(), false),
]);

/** A re-embedding step reads about this many notes' rows of a shard (its share of the id space). */
const REEMBED_STEP_ROWS = 200;
/** Notes embedded per call of the model. */
const REEMBED_BATCH = 50;

export class RebuildUnderWayError extends Error {}

export interface ShardedLocation extends IndexLocation {
  /** Shards of a new index (an existing one keeps its layout until resharded). @default 1 */
  readonly shards?: number;
  /**
   * The scheduled fold folds a shard once this many rows were written to it since its last fold (a
   * write folds at 500): fewer are found through its recent table meanwhile, and a shard's fold costs
   * about as much for one row as for 200 (docs/search.md), so folds track the writes, not the clock.
   * @default 100
   */
  readonly foldRows?: number;
}

const FOLD_ROWS = 100;

export class ShardedSearchIndex implements RelatedIndex, IndexWriter {
  private readonly sets = new Map<string, Promise<LanceSearchIndex>>();

  private constructor(
    private readonly db: lancedb.Connection,
    private readonly location: ShardedLocation,
    private readonly layoutTable: lancedb.Table,
  ) {}

  static async open(location: ShardedLocation): Promise<ShardedSearchIndex> {
    const db = await connectIndex(location);
    const layoutTable = await db.createEmptyTable(LAYOUT_TABLE, layoutSchema, { existOk: true });
    return new ShardedSearchIndex(db, location, layoutTable);
  }

  /** Rows a shard's writes reach before the scheduled fold folds them. */
  get foldRows(): number {
    return this.location.foldRows ?? FOLD_ROWS;
  }

  close(): void {
    for (const set of this.sets.values()) void set.then((opened) => opened.close());
    this.layoutTable.close();
    this.db.close();
  }

  // ---- the layout -------------------------------------------------------------------------

  /** The layout and its revision (0: none written yet, the configured number of shards at generation 0). */
  async layout(): Promise<{ layout: Layout; rev: number }> {
    const rows = await this.layoutTable.query().where(`key = '${LAYOUT_KEY}'`).select(['rev', 'doc']).toArray();
    // Two first writers may each have inserted the row: the higher revision is the layout.
    const newest = rows.sort((a, b) => Number(b.rev) - Number(a.rev))[0];
    if (!newest) return { layout: initialLayout(this.location.shards ?? 1), rev: 0 };
    return { layout: JSON.parse(String(newest.doc)) as Layout, rev: Number(newest.rev) };
  }

  /** Writes `next` if the layout is still at revision `rev`; false when another change got in first. */
  private async compareAndSet(rev: number, next: Layout): Promise<boolean> {
    const outcome = await this.layoutTable
      .mergeInsert('key')
      .whenMatchedUpdateAll({ where: `target.rev = ${rev}` })
      .whenNotMatchedInsertAll()
      .execute([{ key: LAYOUT_KEY, rev: rev + 1, doc: JSON.stringify(next) }]);
    return outcome.numUpdatedRows + outcome.numInsertedRows > 0;
  }

  /** Applies `change` to the current layout until it lands (another change first: read again, redo). */
  private async changeLayout(change: (layout: Layout) => Layout): Promise<Layout> {
    for (let attempt = 1; ; attempt++) {
      const { layout, rev } = await this.layout();
      const next = change(layout);
      if (await this.compareAndSet(rev, next)) return next;
      await backoff(Math.min(attempt, 6));
    }
  }

  private set(prefix: string): Promise<LanceSearchIndex> {
    let opened = this.sets.get(prefix);
    if (!opened) {
      opened = LanceSearchIndex.within(this.db, prefix, this.location);
      opened.catch(() => this.sets.delete(prefix));
      this.sets.set(prefix, opened);
    }
    return opened;
  }

  private async live(userId: string): Promise<LanceSearchIndex> {
    return this.set(liveSet((await this.layout()).layout, userId));
  }

  // ---- reads: the user's live shard --------------------------------------------------------

  async keyword(userId: string, query: SearchQuery, limit: number) {
    return (await this.live(userId)).keyword(userId, query, limit);
  }

  async semantic(userId: string, query: SearchQuery, vector: readonly number[], model: string, limit: number) {
    return (await this.live(userId)).semantic(userId, query, vector, model, limit);
  }

  async byUrlKey(userId: string, key: string) {
    return (await this.live(userId)).byUrlKey(userId, key);
  }

  async note(userId: string, noteId: string) {
    return (await this.live(userId)).note(userId, noteId);
  }

  async vectorOf(userId: string, noteId: string, model: string) {
    return (await this.live(userId)).vectorOf(userId, noteId, model);
  }

  async coverage(userId: string, model: string) {
    return (await this.live(userId)).coverage(userId, model);
  }

  async liveNoteIds(userId: string) {
    return (await this.live(userId)).liveNoteIds(userId);
  }

  // ---- writes: the live shard, and a build's -----------------------------------------------

  async versions(notes: readonly { noteId: string; userId: string }[]): Promise<Map<string, IndexedVersion>> {
    const { layout } = await this.layout();
    const found = new Map<string, IndexedVersion>();
    for (const [prefix, group] of groupBy(notes, ({ userId }) => [liveSet(layout, userId)]))
      for (const [noteId, version] of await (await this.set(prefix)).versions(group)) found.set(noteId, version);
    return found;
  }

  async upsert(documents: readonly SearchDocument[], vectors?: { model: string; rows: readonly NoteVectors[] }) {
    const { layout } = await this.layout();
    await this.writeTo(
      groupBy(documents, (document) => writeSets(layout, document.user_id)),
      documents,
      vectors,
    );
  }

  async tombstone(notes: readonly { noteId: string; userId: string }[]) {
    const { layout } = await this.layout();
    for (const [prefix, group] of groupBy(notes, ({ userId }) => writeSets(layout, userId)))
      await (await this.set(prefix)).tombstone(group);
  }

  /** Hides these versions of notes (in the Trash) in every set their user's notes are written to. */
  async hide(notes: readonly { noteId: string; userId: string; version: number }[]) {
    const { layout } = await this.layout();
    for (const [prefix, group] of groupBy(notes, ({ userId }) => writeSets(layout, userId)))
      await (await this.set(prefix)).hide(group);
  }

  private async writeTo(
    groups: Map<string, SearchDocument[]>,
    documents: readonly SearchDocument[],
    vectors?: { model: string; rows: readonly NoteVectors[] },
  ) {
    const byNote = new Map(documents.map((document) => [document.note_id, document]));
    for (const [prefix, group] of groups) {
      const ids = new Set(group.map((document) => document.note_id));
      const rows = vectors?.rows.filter((row) => ids.has(row.noteId) && byNote.has(row.noteId));
      await (await this.set(prefix)).upsert(group, vectors && rows ? { model: vectors.model, rows } : undefined);
    }
  }

  /**
   * Folds the table sets that were written since their last fold, live ones and a build's, by their
   * unfolded rows: the most first, those under `minRows` left for later, none after `deadline` but
   * always one (a set's fold is a few commits, each whole, so stopping between sets leaves every set
   * folded or not, and the next call takes up the rest). A set nothing was written to costs nothing.
   * Then drops the table sets a switch retired longer ago than a reader may still be reading them.
   * Returns how many sets it folded and how many it left with rows to fold.
   */
  async optimize(options: { deadline?: number; minRows?: number } = {}): Promise<{ folded: number; left: number }> {
    const { layout } = await this.layout();
    const sets = [...liveSets(layout), ...(layout.build ? buildSets(layout.build) : [])];
    const backlog = await Promise.all(
      sets.map(async (prefix) => ({ prefix, rows: await (await this.set(prefix)).unfoldedRows() })),
    );
    const waiting = backlog.filter(({ rows }) => rows > 0).sort((a, b) => b.rows - a.rows);
    const due = waiting.filter(({ rows }) => rows >= (options.minRows ?? 1));
    let folded = 0;
    for (const { prefix } of due) {
      if (folded > 0 && options.deadline !== undefined && Date.now() >= options.deadline) break;
      await (await this.set(prefix)).optimize();
      folded++;
    }
    await this.dropRetired(layout);
    return { folded, left: waiting.length - folded };
  }

  private async dropRetired(layout: Layout) {
    const before = Date.now() - (this.location.keepVersionsSeconds ?? 600) * 1000;
    const due = layout.retired.filter(({ at }) => at <= before).map(({ prefix }) => prefix);
    if (due.length === 0) return;
    for (const prefix of due) {
      await (await this.set(prefix)).drop();
      this.sets.delete(prefix);
    }
    await this.changeLayout((current) => ({
      ...current,
      retired: current.retired.filter(({ prefix }) => !due.includes(prefix)),
    }));
  }

  // ---- rebuilds beside the live index ------------------------------------------------------

  /**
   * Starts a build (a reindex of one shard or all, or a reshard), or with `resume` takes up the one
   * under way from where its scan got. Refused while another build is under way: two rebuilds of one
   * index would each switch to a layout the other did not finish.
   */
  async startBuild(request: BuildRequest, options: { resume?: boolean } = {}): Promise<Build> {
    for (;;) {
      const { layout, rev } = await this.layout();
      if (layout.build) {
        if (options.resume) return layout.build;
        const { kind, startedAt, scanned } = layout.build;
        throw new RebuildUnderWayError(
          `a ${kind} of the search index is under way (started ${new Date(startedAt).toISOString()}, ${scanned} notes scanned): wait for it to finish, or if its process has stopped, run the command again with --resume`,
        );
      }
      if (options.resume) throw new RebuildUnderWayError('there is no reindex or reshard under way to resume');
      const build = planBuild(layout, request, randomUUID(), Date.now());
      if (await this.compareAndSet(rev, { ...layout, build })) return build;
      // Another change of the layout got in first: read it again (it may be another build's start).
    }
  }

  /** Where the build's notes go: only its table sets (the live ones are the stream's to write). */
  builder(build: Build): IndexWriter {
    const sets = (userId: string) => {
      const prefix = buildSet(build, userId);
      return prefix === null ? [] : [prefix];
    };
    return {
      versions: async (notes) => {
        const found = new Map<string, IndexedVersion>();
        for (const [prefix, group] of groupBy(notes, ({ userId }) => sets(userId)))
          for (const [noteId, version] of await (await this.set(prefix)).versions(group)) found.set(noteId, version);
        return found;
      },
      upsert: (documents, vectors) =>
        this.writeTo(
          groupBy(documents, (document) => sets(document.user_id)),
          documents,
          vectors,
        ),
      tombstone: async (notes) => {
        for (const [prefix, group] of groupBy(notes, ({ userId }) => sets(userId)))
          await (await this.set(prefix)).tombstone(group);
      },
      hide: async (notes) => {
        for (const [prefix, group] of groupBy(notes, ({ userId }) => sets(userId)))
          await (await this.set(prefix)).hide(group);
      },
    };
  }

  /** Whether the build rebuilds this user's shard (a scan skips the notes of the others). */
  builds(build: Build, userId: string): boolean {
    return buildSet(build, userId) !== null;
  }

  /** Records how far the build's scan got, so a resumed build starts there. */
  async saveProgress(build: Build, cursor: Record<string, unknown> | null, scanned: number): Promise<Build> {
    const next = { ...build, cursor, scanned };
    await this.changeLayout((layout) => {
      if (layout.build?.id !== build.id)
        throw new RebuildUnderWayError('this build was cancelled or finished by another process');
      return { ...layout, build: next };
    });
    return next;
  }

  /**
   * Folds the build's table sets into their indexes, then switches: one change of the layout makes them
   * live and retires the sets they replace (dropped by a later fold, once no reader can be in them).
   */
  async finishBuild(build: Build): Promise<Layout> {
    for (const prefix of buildSets(build)) await (await this.set(prefix)).optimize();
    return this.changeLayout((layout) => {
      if (layout.build?.id !== build.id)
        throw new RebuildUnderWayError('this build was cancelled or finished by another process');
      return switchedLayout(layout, build, Date.now());
    });
  }

  // ---- re-embedding from a watermark -------------------------------------------------------

  private watermarks(): Promise<lancedb.Table> {
    return this.db.createEmptyTable(WATERMARK_TABLE, layoutSchema, { existOk: true });
  }

  private async watermark(table: lancedb.Table, key: string): Promise<number> {
    const [row] = await table.query().where(`key = '${key}'`).select(['rev']).limit(1).toArray();
    return row ? Number(row.rev) : 0;
  }

  /** Moves a watermark from `from` to `position`; left as it is if it moved meanwhile (a step back wins). */
  private async setWatermark(table: lancedb.Table, key: string, from: number, position: number) {
    await table
      .mergeInsert('key')
      .whenMatchedUpdateAll({ where: `target.rev = ${from}` })
      .whenNotMatchedInsertAll()
      .execute([{ key, rev: position, doc: '' }]);
  }

  /**
   * One step of re-embedding, in the first live shard whose watermark for `model` has not reached the
   * end of the note id space: the notes of the next range of ids (about REEMBED_STEP_ROWS rows) whose
   * vectors are missing or older, embedded by `embed` in batches; then the watermark moves past the
   * range (a model that fails throws, and the watermark stays). A
   * model's watermark is per shard generation, so a new model (or a rebuilt shard) starts from 0, and
   * no step reads more than its range. Returns how many notes it embedded, or null when every shard is done.
   */
  async reembedStep(
    model: string,
    embed: (documents: SearchDocument[]) => Promise<{ model: string; rows: NoteVectors[] }>,
  ): Promise<number | null> {
    const table = await this.watermarks();
    for (const prefix of liveSets((await this.layout()).layout)) {
      const key = watermarkKey(prefix, model);
      const from = await this.watermark(table, key);
      if (from >= NOTE_ID_POSITIONS) continue;
      const set = await this.set(prefix);
      const width = Math.max(1, Math.floor((NOTE_ID_POSITIONS * REEMBED_STEP_ROWS) / Math.max(1, await set.rows())));
      const to = Math.min(NOTE_ID_POSITIONS, from + width);
      const documents = await set.missingVectorsIn(model, from, to);
      for (let start = 0; start < documents.length; start += REEMBED_BATCH) {
        const batch = documents.slice(start, start + REEMBED_BATCH);
        await set.upsert(batch, await embed(batch));
      }
      await this.setWatermark(table, key, from, to);
      return documents.length;
    }
    return null;
  }

  /**
   * Moves a shard's watermark back to before these notes (their embedding failed on the stream's path),
   * so the scheduled step embeds them again.
   */
  async reembedLater(model: string, notes: readonly { noteId: string; userId: string }[]) {
    if (notes.length === 0) return;
    const { layout } = await this.layout();
    const table = await this.watermarks();
    for (const [prefix, group] of groupBy(notes, ({ userId }) => writeSets(layout, userId))) {
      const key = watermarkKey(prefix, model);
      const earliest = Math.min(...group.map(({ noteId }) => noteIdPosition(noteId)));
      const current = await this.watermark(table, key);
      if (earliest < current) await this.setWatermark(table, key, current, earliest);
    }
  }
}

const watermarkKey = (prefix: string, model: string) => `${prefix}|${model}`.replace(/[^A-Za-z0-9_|:.@/-]/g, '_');

/** Items grouped by each table set they go to. */
function groupBy<T>(items: readonly T[], setsOf: (item: T) => string[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items)
    for (const prefix of setsOf(item)) {
      const group = groups.get(prefix) ?? [];
      group.push(item);
      groups.set(prefix, group);
    }
  return groups;
}
