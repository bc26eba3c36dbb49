import * as lancedb from '@lancedb/lancedb';
import { BooleanQuery, type FullTextQuery, Index, MatchQuery, Occur, PhraseQuery } from '@lancedb/lancedb';
import { Bool, Field, FixedSizeList, Float32, Float64, List, Schema, Utf8 } from 'apache-arrow';
import { FIELD_WEIGHTS, type SearchDocument, TEXT_FIELDS } from '../../core/search/document';
import {
  noteIdsFilter,
  noteVersionsFilter,
  queryFilter,
  urlKeyFilter,
  userFilter,
  userRowsFilter,
} from '../../core/search/filter';
import type { SearchQuery, Term } from '../../core/search/query';
import type { RelatedIndex } from '../../core/search/related';
import { fuse, type IndexedNote, stableTop } from '../../core/search/search';
import { swappedLetters } from '../../core/search/tokens';
import { backoff } from '../dynamo/transactions';

/**
 * The search index on LanceDB: one `notes` table of search documents (BM25 full-text indexes on each
 * text field, scalar indexes on the filter columns) and, per embedding model, a `vectors_<model>`
 * table. It lives in a folder locally and on S3 (with a DynamoDB commit store) on AWS.
 *
 * Writes are conditional on the note's version (a merge that only replaces an older row), and a
 * deleted note leaves a tombstone row of the highest version, so replays and records out of order
 * never bring back an old body or a deleted note. Every read filters by user inside the engine
 * query (LanceDB applies `where` before ranking and limits: a prefilter).
 *
 * Full-text search reads indexed rows only. LanceDB 0.31 scores rows its full-text index does not
 * cover yet (the "flat" part of a search) with the index's statistics plus those rows', but counts a
 * word once per occurrence where BM25 counts it once per document; a word held by most indexed rows
 * and repeated in a new one gets a document frequency above the document count, so an IDF of zero or
 * less, and the flat part drops every new row holding it (`score > 0`), from that row on. Folding new
 * rows into the big table's indexes after each batch avoided that, at a cost growing with the table.
 * So every write goes to two tables: the main `notes` table, which every other read uses and which
 * is folded into its indexes every FOLD_AT_ROWS rows and on the indexer's schedule, and a small
 * `recent_notes` table, indexed after every write at a cost bounded by its size. A keyword search
 * asks both for indexed rows only (`fastSearch`), the main table without the notes the recent one
 * holds (a newer version, or a tombstone), and fuses the two lists by rank.
 */

/** A tombstone outranks every version a note can reach. */
const TOMBSTONE_VERSION = Number.MAX_SAFE_INTEGER;
const NOTES_TABLE = 'notes';
/** The notes written since the last fold, each indexed once its batch is written. */
const RECENT_TABLE = 'recent_notes';
/** Past this many rows in the recent table, a write folds them into the main table's indexes. */
const FOLD_AT_ROWS = 500;
/** Folded rows leave the recent table this many at a time (each is a clause of the delete's filter). */
const DELETE_CHUNK = 100;

export interface IndexLocation {
  /** A folder, or `s3+ddb://bucket/prefix?ddbTableName=…` on AWS. */
  readonly uri: string;
  readonly storageOptions?: Record<string, string>;
  /**
   * How stale a read may be, in seconds, when other processes write the index (the indexer does):
   * 0 checks for a newer version on every read. @default 0
   */
  readonly readConsistencySeconds?: number;
  /**
   * How long a table's old versions are kept after the fold that supersedes them, in seconds: a
   * reader that opened one may still be reading its files. @default 600 (the fold's period)
   */
  readonly keepVersionsSeconds?: number;
  /** A vector table gets its approximate index at the fold once it holds this many rows. @default 10,000 */
  readonly vectorIndexAtRows?: number;
}

/**
 * Below this many rows a semantic query reads every vector of the user's (after the user_id index),
 * which is fast; from it on a vector table gets an IVF-PQ index (npm run bench, docs/search.md).
 */
const VECTOR_INDEX_AT_ROWS = 10_000;
/** Partitions a query visits and how many candidates per hit it re-ranks by exact distance: recall@10 0.99 of exact search measured. */
const VECTOR_NPROBES = 20;
const VECTOR_REFINE_FACTOR = 5;

/** Old versions outlive their fold this long by default: a search opened on one finishes first. */
const KEEP_VERSIONS_SECONDS = 600;

/** What the indexer knows of a note in the index. */
export interface IndexedVersion {
  readonly version: number;
  readonly deleted: boolean;
}

export interface VectorRow {
  readonly noteId: string;
  readonly vector: readonly number[];
}

const list = (name: string) => new Field(name, new List(new Field('item', new Utf8(), true)), false);

/** Columns both tables filter on, so one filter serves both. */
const filterFields = [
  new Field('note_id', new Utf8(), false),
  new Field('user_id', new Utf8(), false),
  new Field('version', new Float64(), false),
  new Field('deleted', new Bool(), false),
  new Field('created', new Float64(), false),
  new Field('updated', new Float64(), false),
  list('tag_keys'),
  list('sites'),
  new Field('highlight_count', new Float64(), false),
];

const notesSchema = new Schema([
  ...filterFields,
  ...TEXT_FIELDS.map((field) => new Field(field, new Utf8(), false)),
  list('tags'),
  new Field('url_key', new Utf8(), false),
  new Field('prefixes', new Utf8(), false),
]);

function vectorsSchema(dimensions: number) {
  return new Schema([
    ...filterFields,
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

/** Columns a hit needs (never the prefixes or vectors). */
const HIT_COLUMNS = ['note_id', 'tags', 'created', 'updated', 'highlight_count', ...TEXT_FIELDS];

export class LanceSearchIndex implements RelatedIndex {
  private readonly vectorTables = new Map<string, lancedb.Table>();

  private constructor(
    private readonly db: lancedb.Connection,
    private notes: lancedb.Table,
    /** Null until found or made: a reader (no write access) never makes it. */
    private recent: lancedb.Table | null,
    private readonly keepVersionsSeconds: number,
    private readonly vectorIndexAtRows: number,
  ) {}

  static async open(location: IndexLocation): Promise<LanceSearchIndex> {
    const db = await lancedb.connect(location.uri, {
      // Lance file format 2.0: 0.31.0's default (2.1) failed to decode its own string pages past ~15,000 notes (npm run bench).
      storageOptions: { new_table_data_storage_version: '2.0', ...location.storageOptions },
      readConsistencyInterval: location.readConsistencySeconds ?? 0,
    });
    const notes = await notesTable(db, NOTES_TABLE);
    await withTextFields(notes, MAIN_INDEXES);
    return new LanceSearchIndex(
      db,
      notes,
      null,
      location.keepVersionsSeconds ?? KEEP_VERSIONS_SECONDS,
      location.vectorIndexAtRows ?? VECTOR_INDEX_AT_ROWS,
    );
  }

  close(): void {
    for (const table of [this.notes, this.recent, ...this.vectorTables.values()]) table?.close();
    this.db.close();
  }

  // ---- reads -------------------------------------------------------------------------------

  async keyword(userId: string, query: SearchQuery, limit: number) {
    const filter = queryFilter(userId, query);
    const tolerant = fullTextQuery(query);
    if (!tolerant) {
      // Filters only: the newest notes that pass them (and hold no excluded word), ties by note id.
      const rows = await this.notes
        .query()
        .where(await this.withoutExcluded(userId, query, filter))
        .select(HIT_COLUMNS)
        .orderBy([
          { columnName: 'updated', ascending: false },
          { columnName: 'note_id', ascending: true },
        ])
        .limit(limit)
        .toArray();
      return rows.map((row) => ({ note: indexedNote(row), score: 0 }));
    }
    const sources = await this.fullTextSources(userId, filter);
    const ranked = async (text: FullTextQuery) => {
      const [main, recent] = await Promise.all(
        sources.map(({ table, where }) => stableTop((n) => this.fullTextHits(table, where, text, n), limit)),
      );
      if (!recent?.length) return main!;
      if (main!.length === 0) return recent;
      // Two tables' BM25 scores are not comparable (each has its own document counts): fused by rank,
      // equal scores ranked by note id so that every page of a query fuses the same ranks.
      return fuse(main!, recent).slice(0, limit);
    };
    // Typo-tolerant matching doubles a query's cost, so it runs only when the exact words do not fill
    // the window (as Typesense's typo_tokens_threshold does): `npx tsx bench/search-profile.ts`. The
    // exact matches come first and the typo-tolerant ones after them, so every window of a query
    // starts with the same notes in the same order, whichever queries it took (stable paging).
    const exact = fullTextQuery(query, { typos: false });
    const first = exact ? await ranked(exact) : [];
    if (exact && first.length >= limit) return first;
    const shown = new Set(first.map(({ note }) => note.note_id));
    const rest = (await ranked(tolerant)).filter(({ note }) => !shown.has(note.note_id));
    return [...first, ...rest].slice(0, limit);
  }

  async semantic(userId: string, query: SearchQuery, vector: readonly number[], model: string, limit: number) {
    const table = await this.vectorTable(model, vector.length);
    const where = await this.withoutExcluded(userId, query, queryFilter(userId, query));
    const nearest = await stableTop(
      async (n) =>
        (
          await table
            .query()
            .nearestTo([...vector])
            .distanceType('cosine')
            .nprobes(VECTOR_NPROBES)
            .refineFactor(VECTOR_REFINE_FACTOR)
            .where(where)
            .select(['note_id', '_distance'])
            .limit(n)
            .toArray()
        ).map((row) => ({ note: { note_id: String(row.note_id) }, score: 1 - Number(row._distance) })),
      limit,
    );
    const ids = nearest.map(({ note }) => note.note_id);
    const notes = new Map(
      (await this.readNotes(`${userFilter(userId)} AND ${noteIdsFilter(ids)}`, ids.length)).map((note) => [
        note.note_id,
        note,
      ]),
    );
    return nearest.flatMap(({ note: { note_id }, score }) => {
      const note = notes.get(note_id);
      return note ? [{ note, score }] : [];
    });
  }

  async byUrlKey(userId: string, key: string): Promise<IndexedNote | null> {
    return (await this.readNotes(urlKeyFilter(userId, key), 1))[0] ?? null;
  }

  async note(userId: string, noteId: string): Promise<IndexedNote | null> {
    return (await this.readNotes(`${userFilter(userId)} AND ${noteIdsFilter([noteId])}`, 1))[0] ?? null;
  }

  async vectorOf(userId: string, noteId: string, model: string): Promise<number[] | null> {
    const table = await this.existingVectorTable(model);
    if (!table) return null;
    const [row] = await table
      .query()
      .where(`${userFilter(userId)} AND ${noteIdsFilter([noteId])}`)
      .select(['vector'])
      .limit(1)
      .toArray();
    return row ? Array.from(row.vector as Iterable<number>, Number) : null;
  }

  async coverage(userId: string, model: string) {
    const filter = userFilter(userId);
    const vectors = await this.existingVectorTable(model);
    const [notes, embedded] = await Promise.all([
      this.notes.countRows(filter),
      vectors ? vectors.countRows(filter) : 0,
    ]);
    return { notes, embedded };
  }

  /**
   * Where the user's indexed rows are for a full-text search: the recent table, and the main table
   * without the notes the recent one holds (older versions, or deleted notes); a user with none in
   * the recent table (most searches) needs no search of it.
   */
  private async fullTextSources(userId: string, filter: string): Promise<{ table: lancedb.Table; where: string }[]> {
    const recent = await this.recentTable();
    const superseded = recent ? await this.recentNoteIds(recent, userId) : [];
    if (!recent || superseded.length === 0) return [{ table: this.notes, where: filter }];
    return [
      { table: this.notes, where: `${filter} AND NOT (${noteIdsFilter(superseded)})` },
      { table: recent, where: filter },
    ];
  }

  private async fullTextHits(table: lancedb.Table, where: string, text: FullTextQuery, limit: number) {
    const rows = await table
      .query()
      .fullTextSearch(text)
      .fastSearch()
      .where(where)
      .select([...HIT_COLUMNS, '_score'])
      .limit(limit)
      .toArray();
    return rows.map((row) => ({ note: indexedNote(row), score: Number(row._score ?? 0) }));
  }

  /**
   * The filter without the user's notes that hold an excluded word or phrase (or its typo-tolerant
   * matches, as a full-text query excludes them): for the reads that have no full-text query to put
   * the exclusion in (filters only, nearest neighbours), so it is applied before their limit.
   */
  private async withoutExcluded(userId: string, query: SearchQuery, filter: string): Promise<string> {
    if (query.excluded.length === 0) return filter;
    const text = new BooleanQuery(query.excluded.map((term) => [Occur.Should, termQuery(term, true)]));
    const most = await this.notes.countRows(userFilter(userId));
    if (most === 0) return filter;
    const sources = await this.fullTextSources(userId, userFilter(userId));
    const ids = new Set<string>();
    for (const { table, where } of sources) {
      const rows = await table
        .query()
        .fullTextSearch(text)
        .fastSearch()
        .where(where)
        .select(['note_id'])
        .limit(most)
        .toArray();
      for (const row of rows) ids.add(String(row.note_id));
    }
    return ids.size > 0 ? `${filter} AND NOT (${noteIdsFilter([...ids])})` : filter;
  }

  /** The notes of this user the recent table holds, deleted ones included. */
  private async recentNoteIds(recent: lancedb.Table, userId: string): Promise<string[]> {
    const rows = await recent.query().where(userRowsFilter(userId)).select(['note_id']).toArray();
    return rows.map((row) => String(row.note_id));
  }

  private async readNotes(filter: string, limit: number): Promise<IndexedNote[]> {
    if (limit === 0) return [];
    const rows = await this.notes.query().where(filter).select(HIT_COLUMNS).limit(limit).toArray();
    return rows.map(indexedNote);
  }

  // ---- writes ------------------------------------------------------------------------------

  /** The version (or tombstone) the index holds for each of these notes; absent when it holds none. */
  async versions(noteIds: readonly string[]): Promise<Map<string, IndexedVersion>> {
    if (noteIds.length === 0) return new Map();
    const rows = await this.notes
      .query()
      .where(noteIdsFilter(noteIds))
      .select(['note_id', 'version', 'deleted'])
      .limit(noteIds.length)
      .toArray();
    // A hidden note (in the Trash) is no deletion: a restore's higher version brings it back.
    return new Map(
      rows.map((row) => [
        String(row.note_id),
        { version: Number(row.version), deleted: Boolean(row.deleted) && Number(row.version) === TOMBSTONE_VERSION },
      ]),
    );
  }

  /**
   * Writes these documents, each only over an older version of its note (never over a tombstone),
   * and their vectors (when given) into the model's table under the same rule.
   */
  async upsert(documents: readonly SearchDocument[], vectors?: { model: string; rows: readonly VectorRow[] }) {
    if (documents.length === 0) return;
    // Only what moves a note forward goes to the recent table (re-embedding writes the held versions again).
    const held = await this.versions(documents.map((document) => document.note_id));
    const newer = documents.flatMap((document) => {
      const current = held.get(document.note_id);
      return current && (current.deleted || current.version >= document.version)
        ? []
        : [{ ...document, deleted: false }];
    });
    await this.writeNotes(newer);
    if (vectors && vectors.rows.length > 0) {
      const byId = new Map(documents.map((document) => [document.note_id, document]));
      const table = await this.vectorTable(vectors.model, vectors.rows[0]!.vector.length);
      await mergeNewer(
        table,
        vectors.rows.flatMap(({ noteId, vector }) => {
          const document = byId.get(noteId);
          return document ? [{ ...filterColumns(document), deleted: false, vector: [...vector] }] : [];
        }),
      );
    }
    await this.afterWrite(newer.length);
  }

  /** Marks these notes deleted for good: their text goes, a tombstone row stays. */
  async tombstone(notes: readonly { noteId: string; userId: string }[]) {
    await this.writeHidden(notes.map(({ noteId, userId }) => tombstoneRow(noteId, userId, TOMBSTONE_VERSION)));
  }

  /**
   * Hides these versions of notes (notes in the Trash): their text goes and no search finds them, as
   * for a deletion, but the row keeps the note's version, so its next version (a restore) is written
   * over it.
   */
  async hide(notes: readonly { noteId: string; userId: string; version: number }[]) {
    await this.writeHidden(notes.map(({ noteId, userId, version }) => tombstoneRow(noteId, userId, version)));
  }

  /** Rows without text, marked deleted (every search filters them out), in the notes and every vector table. */
  private async writeHidden(rows: ReturnType<typeof tombstoneRow>[]) {
    if (rows.length === 0) return;
    await this.writeNotes(rows.map((row) => ({ ...row, tags: [], url_key: '', prefixes: '', ...emptyText() })));
    for (const table of await this.allVectorTables()) {
      const zero = new Array<number>(await vectorDimensions(table)).fill(0);
      await mergeNewer(
        table,
        rows.map((row) => ({ ...row, vector: zero })),
      );
    }
    await this.afterWrite(rows.length);
  }

  /** Empties the index (all users) or one user's live rows, before a rebuild. */
  async clear(userId?: string) {
    if (userId === undefined) {
      for (const name of await this.db.tableNames()) await this.db.dropTable(name);
      this.vectorTables.clear();
      this.notes = await this.db.createEmptyTable(NOTES_TABLE, notesSchema, { existOk: true });
      this.recent = null;
      return;
    }
    for (const table of [this.notes, await this.writableRecent(), ...(await this.allVectorTables())])
      await committed(() => table.delete(userFilter(userId)));
  }

  /** Notes of the index whose vectors in `model` are missing, up to `limit` (for re-embedding). */
  async missingVectors(model: string, limit: number): Promise<SearchDocument[]> {
    const table = await this.existingVectorTable(model);
    const rows = table ? await table.query().where('deleted = false').select(['note_id', 'version']).toArray() : [];
    const embedded = new Map(rows.map((row) => [String(row.note_id), Number(row.version)]));
    const missing: SearchDocument[] = [];
    for await (const batch of this.notes.query().where('deleted = false')) {
      for (const row of batch.toArray()) {
        if ((embedded.get(String(row.note_id)) ?? -1) < Number(row.version)) missing.push(documentOf(row));
        if (missing.length >= limit) return missing;
      }
    }
    return missing;
  }

  /** Rows written since the last fold (0 when a fold has nothing to do). */
  async unfoldedRows(): Promise<number> {
    return (await (await this.recentTable())?.countRows()) ?? 0;
  }

  /**
   * Folds what was written since the last fold into the main table's indexes and compacts small
   * files: its cost grows with the table. The recent table then lets go of the notes folded. Every
   * table's versions older than `keepVersionsSeconds` go, with the files only they used: without
   * that a table kept every version it ever had (the judged run's index held 2.4 GB for 12,300
   * notes, its recent table 4,509 versions in 1.3 GB).
   */
  async optimize() {
    const recent = await this.writableRecent();
    const pending = (await recent.query().select(['note_id', 'version']).toArray()).map((row) => ({
      noteId: String(row.note_id),
      version: Number(row.version),
    }));
    // A recent row whose main-table write has not landed yet (a batch between its two writes) stays.
    const held = await this.versions(pending.map(({ noteId }) => noteId));
    const folded = pending.filter(({ noteId, version }) => (held.get(noteId)?.version ?? -1) >= version);
    await ensureIndexes(this.notes, MAIN_INDEXES);
    const vectorTables = await this.allVectorTables();
    // A semantic query filters by user first: a scalar index on it spares reading every row's user.
    for (const table of vectorTables) {
      await ensureIndexes(table, VECTOR_INDEXES);
      await this.ensureVectorIndex(table);
    }
    const cleanupOlderThan = new Date(Date.now() - this.keepVersionsSeconds * 1000);
    for (const table of [this.notes, ...vectorTables]) await committed(() => table.optimize({ cleanupOlderThan }));
    for (let start = 0; start < folded.length; start += DELETE_CHUNK)
      await committed(() => recent.delete(noteVersionsFilter(folded.slice(start, start + DELETE_CHUNK))));
    await committed(() => recent.optimize({ cleanupOlderThan }));
  }

  /**
   * An IVF-PQ index on the vectors once the table passes `vectorIndexAtRows` (rows written after it
   * are searched exactly until the next fold adds them to it): about a partition per 625 rows, and a
   * sub-vector per 4 dimensions.
   */
  private async ensureVectorIndex(table: lancedb.Table) {
    if ((await table.listIndices()).some((index) => index.columns.includes('vector'))) return;
    const rows = await table.countRows();
    if (rows < this.vectorIndexAtRows) return;
    const dimensions = await vectorDimensions(table);
    await committed(() =>
      table.createIndex('vector', {
        config: Index.ivfPq({
          distanceType: 'cosine',
          numPartitions: Math.min(1024, Math.max(16, Math.round(rows / 625))),
          numSubVectors: Math.max(1, Math.floor(dimensions / 4)),
        }),
      }),
    );
  }

  /**
   * The recent table first: a batch that fails between the two writes is replayed (the main table
   * still holds the older version), while a recent row without its main one would be skipped by it.
   */
  private async writeNotes(rows: Record<string, unknown>[]) {
    await mergeNewer(await this.writableRecent(), rows);
    await mergeNewer(this.notes, rows);
  }

  /** Brings the recent table's indexes up to its rows (a cost bounded by FOLD_AT_ROWS), or past that size folds. */
  private async afterWrite(written: number) {
    if (written === 0) return;
    const recent = await this.writableRecent();
    if ((await recent.countRows()) >= FOLD_AT_ROWS) await this.optimize();
    else await committed(() => recent.optimize());
  }

  private async recentTable(): Promise<lancedb.Table | null> {
    if (!this.recent && (await this.db.tableNames()).includes(RECENT_TABLE)) {
      const recent = await this.db.openTable(RECENT_TABLE);
      await withTextFields(recent, FULL_TEXT_INDEXES);
      this.recent = recent;
    }
    return this.recent;
  }

  /** The recent table, made when missing; both tables' indexes are made with it (on no rows, if need be). */
  private async writableRecent(): Promise<lancedb.Table> {
    if (this.recent) return this.recent;
    const recent = await notesTable(this.db, RECENT_TABLE);
    await withTextFields(recent, FULL_TEXT_INDEXES);
    await ensureIndexes(recent, FULL_TEXT_INDEXES);
    await ensureIndexes(this.notes, MAIN_INDEXES);
    this.recent = recent;
    return recent;
  }

  private async vectorTable(model: string, dimensions: number): Promise<lancedb.Table> {
    const cached = this.vectorTables.get(model);
    if (cached) return cached;
    const table = await this.db.createEmptyTable(vectorTableName(model), vectorsSchema(dimensions), { existOk: true });
    this.vectorTables.set(model, table);
    return table;
  }

  private async existingVectorTable(model: string): Promise<lancedb.Table | null> {
    const cached = this.vectorTables.get(model);
    if (cached) return cached;
    if (!(await this.db.tableNames()).includes(vectorTableName(model))) return null;
    const table = await this.db.openTable(vectorTableName(model));
    this.vectorTables.set(model, table);
    return table;
  }

  private async allVectorTables(): Promise<lancedb.Table[]> {
    const names = (await this.db.tableNames()).filter((name) => name.startsWith('vectors_'));
    return Promise.all(names.map((name) => this.db.openTable(name)));
  }
}

// An Index config is spent by the createIndex that takes it, so each is made for its column.
const fullText = (withPosition: boolean) => () =>
  Index.fts({ withPosition, stem: false, removeStopWords: false, asciiFolding: true });
/** Full-text indexes on each text field (positions for phrases). */
const FULL_TEXT_INDEXES: [string, () => Index][] = [
  ...TEXT_FIELDS.map((field): [string, () => Index] => [field, fullText(true)]),
  ['prefixes', fullText(false)],
];
/** The main table's: the full-text ones and scalar indexes on the filter columns. */
const MAIN_INDEXES: [string, () => Index][] = [
  ...FULL_TEXT_INDEXES,
  ['user_id', () => Index.btree()],
  ['note_id', () => Index.btree()],
  ['url_key', () => Index.btree()],
  ['deleted', () => Index.bitmap()],
];

/** The vector tables': a scalar index on the user (and the note, which writes merge on). */
const VECTOR_INDEXES: [string, () => Index][] = [
  ['user_id', () => Index.btree()],
  ['note_id', () => Index.btree()],
];

async function ensureIndexes(table: lancedb.Table, wanted: readonly [string, () => Index][]) {
  const existing = new Set((await table.listIndices()).flatMap((index) => index.columns));
  for (const [column, config] of wanted) {
    if (existing.has(column)) continue;
    // Another writer may make the same index at the same moment: then it is there, as wanted.
    await committed(() => table.createIndex(column, { config: config() })).catch((error: unknown) => {
      if (!/already exists/.test(error instanceof Error ? error.message : String(error))) throw error;
    });
  }
}

/** A table of notes: opened as it is (maybe written before a field existed), or made. */
async function notesTable(db: lancedb.Connection, name: string): Promise<lancedb.Table> {
  if ((await db.tableNames()).includes(name)) return db.openTable(name);
  return db.createEmptyTable(name, notesSchema, { existOk: true });
}

/**
 * A table written before a text field existed (the kept article's text) gets it, empty, with its
 * full-text index when the table has the others', so every query can name every field. A reader
 * without write access (the search function on AWS) leaves that to the indexer, which does it when it
 * opens the index: until then that reader's keyword searches fail.
 */
async function withTextFields(table: lancedb.Table, indexes: readonly [string, () => Index][]) {
  const present = new Set((await table.schema()).fields.map((field) => field.name));
  const missing = TEXT_FIELDS.filter((field) => !present.has(field));
  if (missing.length === 0) return;
  try {
    await committed(() => table.addColumns(missing.map((name) => ({ name, valueSql: "''" }))));
  } catch (error) {
    if (!/already exists/i.test(error instanceof Error ? error.message : String(error))) return;
  }
  if ((await table.listIndices()).length > 0)
    await ensureIndexes(
      table,
      indexes.filter(([column]) => (missing as string[]).includes(column)),
    );
}

/**
 * The engine's full-text query for the query's terms, or null when it has none; `typos: false`
 * leaves out the typo-tolerant matches, and answers null when the query has none to leave out.
 */
function fullTextQuery(query: SearchQuery, options: { typos: boolean } = { typos: true }): FullTextQuery | null {
  const positive = query.required.length + query.optional.length;
  if (positive === 0) return null;
  const tolerant = [...query.required, ...query.optional].some((term) => term.kind === 'word' && term.typos > 0);
  if (!options.typos && !tolerant) return null;
  const term = (found: Term) => termQuery(found, options.typos);
  const clauses: [Occur, FullTextQuery][] = [
    ...query.required.map((found): [Occur, FullTextQuery] => [Occur.Must, term(found)]),
    ...query.optional.map((found): [Occur, FullTextQuery] => [Occur.Should, term(found)]),
    // Excluded words exclude their typo-tolerant matches too, whichever query runs.
    ...query.excluded.map((found): [Occur, FullTextQuery] => [Occur.MustNot, termQuery(found, true)]),
  ];
  return new BooleanQuery(clauses);
}

/**
 * Words longer than this are searched exactly, without typos: the engine builds a Levenshtein
 * automaton for a typo-tolerant word and refuses one over 10,000 states (at two edits, from 256 ASCII
 * letters, fewer in other scripts). No real word is this long; a pasted token or hash is meant exactly.
 */
const FUZZY_MAX_LETTERS = 48;

/** One term over every field, each weighted; an exact word outranks its typo-tolerant matches. */
function termQuery(term: Term, typos: boolean): FullTextQuery {
  if (term.kind === 'prefix') return new MatchQuery(term.prefix, 'prefixes');
  const perField = TEXT_FIELDS.flatMap((field): [Occur, FullTextQuery][] => {
    const boost = FIELD_WEIGHTS[field];
    if (term.kind === 'phrase') return [[Occur.Should, new PhraseQuery(term.words.join(' '), field)]];
    const exact: [Occur, FullTextQuery] = [Occur.Should, new MatchQuery(term.word, field, { boost })];
    if (term.typos === 0 || !typos || [...term.word].length > FUZZY_MAX_LETTERS) return [exact];
    const near = (word: string, fuzziness: number): [Occur, FullTextQuery] => [
      Occur.Should,
      new MatchQuery(word, field, { boost: boost / 2, ...(fuzziness > 0 ? { fuzziness } : {}) }),
    ];
    // The engine counts two swapped letters as two edits: within a budget of one, they are asked for as words.
    const swaps = term.typos === 1 ? swappedLetters(term.word).map((word) => near(word, 0)) : [];
    return [exact, near(term.word, term.typos), ...swaps];
  });
  return new BooleanQuery(perField);
}

/** Inserts rows of notes the table lacks and replaces rows of an older version; leaves the rest. */
async function mergeNewer(table: lancedb.Table, rows: Record<string, unknown>[]) {
  if (rows.length === 0) return;
  await committed(() =>
    table
      .mergeInsert('note_id')
      .whenMatchedUpdateAll({ where: 'target.version < source.version' })
      .whenNotMatchedInsertAll()
      .execute(rows),
  );
}

/** LanceDB's word for a commit another writer got in first: the same write again, on the new version, succeeds. */
const RETRYABLE_CONFLICT = /Retryable commit conflict/;
const COMMIT_ATTEMPTS = 10;

/**
 * A write to a table, tried again (jittered exponential backoff, up to a second a wait) while another
 * writer's commit pre-empts it: the scheduled fold, an operator's reindex, a second stream shard.
 * Every write here is idempotent (merges move notes forward only; folds, deletes and indexes may
 * run twice), so a retry is safe. A conflict past the attempts fails the batch, as any error does.
 */
async function committed<T>(write: () => Promise<T>, attempts = COMMIT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts || !RETRYABLE_CONFLICT.test(error instanceof Error ? error.message : String(error)))
        throw error;
      await backoff(attempt);
    }
  }
}

function filterColumns(document: SearchDocument) {
  return {
    note_id: document.note_id,
    user_id: document.user_id,
    version: document.version,
    created: document.created,
    updated: document.updated,
    tag_keys: document.tag_keys,
    sites: document.sites,
    highlight_count: document.highlight_count,
  };
}

function tombstoneRow(noteId: string, userId: string, version: number) {
  return {
    note_id: noteId,
    user_id: userId,
    version,
    deleted: true,
    created: 0,
    updated: 0,
    tag_keys: [],
    sites: [],
    highlight_count: 0,
  };
}

function emptyText() {
  return Object.fromEntries(TEXT_FIELDS.map((field) => [field, '']));
}

async function vectorDimensions(table: lancedb.Table): Promise<number> {
  const field = (await table.schema()).fields.find((candidate) => candidate.name === 'vector');
  if (!field) throw new Error('a vectors table without its vector column');
  return (field.type as FixedSizeList).listSize;
}

/** A model name as a table name: letters, digits and `_` only, with a digest so two names never collide. */
function vectorTableName(model: string): string {
  const readable = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 40);
  let hash = 0;
  for (const char of model) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return `vectors_${readable}_${hash.toString(16)}`;
}

function strings(value: unknown): string[] {
  if (!value) return [];
  return Array.from(value as Iterable<unknown>, String);
}

function indexedNote(row: Record<string, unknown>): IndexedNote {
  return {
    note_id: String(row.note_id),
    title: String(row.title ?? ''),
    url: String(row.url ?? ''),
    tags: strings(row.tags),
    created: Number(row.created),
    updated: Number(row.updated),
    highlight_count: Number(row.highlight_count),
    tags_text: String(row.tags_text ?? ''),
    highlights: String(row.highlights ?? ''),
    comment: String(row.comment ?? ''),
    description: String(row.description ?? ''),
    article: String(row.article ?? ''),
  };
}

function documentOf(row: Record<string, unknown>): SearchDocument {
  return {
    ...indexedNote(row),
    user_id: String(row.user_id),
    version: Number(row.version),
    tag_keys: strings(row.tag_keys),
    sites: strings(row.sites),
    url_key: String(row.url_key ?? ''),
    prefixes: String(row.prefixes ?? ''),
  };
}
