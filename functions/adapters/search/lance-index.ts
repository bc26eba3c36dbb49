import * as lancedb from '@lancedb/lancedb';
import { BooleanQuery, type FullTextQuery, Index, MatchQuery, Occur, PhraseQuery } from '@lancedb/lancedb';
import { Bool, Field, FixedSizeList, Float32, Float64, List, Schema, Utf8 } from 'apache-arrow';
import { FIELD_WEIGHTS, MAX_ARTICLE_CHUNKS, type SearchDocument, TEXT_FIELDS } from '../../core/search/document';
import {
  noteIdRangeFilter,
  noteIdsFilter,
  noteVersionsFilter,
  queryFilter,
  urlKeyFilter,
  userFilter,
  userRowsFilter,
} from '../../core/search/filter';
import type { NoteVectors } from '../../core/search/indexer';
import type { SearchQuery, Term } from '../../core/search/query';
import type { RelatedIndex } from '../../core/search/related';
import { type Coverage, fuse, type IndexedNote, stableTop } from '../../core/search/search';
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

/** A model's vectors: one per note (`vectors_…`), or one per chunk of a kept article (`chunks_…`, keyed by `chunk_id`). */
type VectorKind = 'vectors' | 'chunks';

function vectorsSchema(kind: VectorKind, dimensions: number) {
  return new Schema([
    ...filterFields,
    ...(kind === 'chunks' ? [new Field('chunk_id', new Utf8(), false)] : []),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

/** Columns a hit needs (never the prefixes or vectors). */
const HIT_COLUMNS = ['note_id', 'tags', 'created', 'updated', 'highlight_count', ...TEXT_FIELDS];

export class LanceSearchIndex implements RelatedIndex {
  private readonly vectorTables = new Map<string, lancedb.Table>();

  private constructor(
    private readonly db: lancedb.Connection,
    /** Names this set's tables (`notes`, `recent_notes`, `vectors_…` after it): a shard's generation. */
    private readonly prefix: string,
    private notes: lancedb.Table,
    /** Null until found or made: a reader (no write access) never makes it. */
    private recent: lancedb.Table | null,
    private readonly keepVersionsSeconds: number,
    private readonly vectorIndexAtRows: number,
    /** Whether closing this set closes the connection (its own) or leaves it to the sharded index that shares it. */
    private readonly ownsConnection: boolean,
  ) {}

  /** One set of tables in its own connection (an index of one shard, as tests and benches use it). */
  static async open(location: IndexLocation): Promise<LanceSearchIndex> {
    return LanceSearchIndex.within(await connectIndex(location), '', location, true);
  }

  /** The set of tables named after `prefix` in an open connection (a shard of a sharded index). */
  static async within(
    db: lancedb.Connection,
    prefix: string,
    location: IndexLocation,
    ownsConnection = false,
  ): Promise<LanceSearchIndex> {
    const notes = await notesTable(db, `${prefix}${NOTES_TABLE}`);
    await withTextFields(notes, MAIN_INDEXES);
    return new LanceSearchIndex(
      db,
      prefix,
      notes,
      null,
      location.keepVersionsSeconds ?? KEEP_VERSIONS_SECONDS,
      location.vectorIndexAtRows ?? VECTOR_INDEX_AT_ROWS,
      ownsConnection,
    );
  }

  close(): void {
    for (const table of [this.notes, this.recent, ...this.vectorTables.values()]) table?.close();
    if (this.ownsConnection) this.db.close();
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
      return oncePerNote(rows).map((row) => ({ note: indexedNote(row), score: 0 }));
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

  /**
   * The nearest notes, each scored by its best vector: its own text's or one of its kept article's
   * chunks'. The n best notes are among the n nearest note vectors and the n × MAX_ARTICLE_CHUNKS
   * nearest chunks (a note has at most that many), so every window is exact.
   */
  async semantic(userId: string, query: SearchQuery, vector: readonly number[], model: string, limit: number) {
    const table = await this.vectorTable('vectors', model, vector.length);
    const chunks = await this.existingVectorTable('chunks', model);
    const where = await this.withoutExcluded(userId, query, queryFilter(userId, query));
    const nearestIn = async (source: lancedb.Table, n: number) =>
      (
        await source
          .query()
          .nearestTo([...vector])
          .distanceType('cosine')
          .nprobes(VECTOR_NPROBES)
          .refineFactor(VECTOR_REFINE_FACTOR)
          .where(where)
          .select(['note_id', '_distance'])
          .limit(n)
          .toArray()
      ).map((row) => ({ note_id: String(row.note_id), score: 1 - Number(row._distance) }));
    const nearest = await stableTop(async (n) => {
      const best = new Map<string, number>();
      const [own, passages] = await Promise.all([
        nearestIn(table, n),
        chunks ? nearestIn(chunks, n * MAX_ARTICLE_CHUNKS) : [],
      ]);
      for (const { note_id, score } of [...own, ...passages])
        best.set(note_id, Math.max(score, best.get(note_id) ?? -1));
      return [...best].map(([note_id, score]) => ({ note: { note_id }, score }));
    }, limit);
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

  /**
   * The note's meaning for related notes: its own vector, or with a kept article the normalised mean
   * of its own and its chunks' vectors (the page it keeps says what it is about too).
   */
  async vectorOf(userId: string, noteId: string, model: string): Promise<number[] | null> {
    const table = await this.existingVectorTable('vectors', model);
    if (!table) return null;
    const where = `${userFilter(userId)} AND ${noteIdsFilter([noteId])}`;
    const [row] = await table.query().where(where).select(['vector']).limit(1).toArray();
    if (!row) return null;
    const chunks = await this.existingVectorTable('chunks', model);
    const rows = [row, ...(chunks ? await chunks.query().where(where).select(['vector']).toArray() : [])];
    const vectors = rows.map((found) => Array.from(found.vector as Iterable<number>, Number));
    if (vectors.length === 1) return vectors[0]!;
    const sum = vectors[0]!.map((_, i) => vectors.reduce((total, vector) => total + vector[i]!, 0));
    const norm = Math.hypot(...sum) || 1;
    return sum.map((value) => value / norm);
  }

  async coverage(userId: string, model: string): Promise<Coverage> {
    const filter = userFilter(userId);
    const vectors = await this.existingVectorTable('vectors', model);
    const recent = await this.recentTable();
    const [notes, embedded, written] = await Promise.all([
      this.notes.countRows(filter),
      vectors ? vectors.countRows(filter) : 0,
      recent ? recent.query().where(filter).select(['note_id']).toArray() : [],
    ]);
    // The user's live notes written since the last fold, less those whose vectors have followed.
    const ids = [...new Set(written.map((row) => String(row.note_id)))];
    const followed = vectors && ids.length > 0 ? await vectors.countRows(`${filter} AND ${noteIdsFilter(ids)}`) : 0;
    return { notes, embedded, waiting: Math.max(0, ids.length - followed) };
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
    return oncePerNote(rows).map((row) => ({ note: indexedNote(row), score: Number(row._score ?? 0) }));
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
    return oncePerNote(rows).map(indexedNote);
  }

  // ---- writes ------------------------------------------------------------------------------

  /** The version (or tombstone) the index holds for each of these notes; absent when it holds none. */
  async versions(notes: readonly { noteId: string }[]): Promise<Map<string, IndexedVersion>> {
    if (notes.length === 0) return new Map();
    const noteIds = notes.map(({ noteId }) => noteId);
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
  async upsert(documents: readonly SearchDocument[], vectors?: { model: string; rows: readonly NoteVectors[] }) {
    if (documents.length === 0) return;
    // Only what moves a note forward goes to the recent table (re-embedding writes the held versions again).
    const held = await this.versions(documents.map((document) => ({ noteId: document.note_id })));
    const newer = documents.flatMap((document) => {
      const current = held.get(document.note_id);
      return current && (current.deleted || current.version >= document.version)
        ? []
        : [{ ...document, deleted: false }];
    });
    await this.writeNotes(newer);
    if (vectors && vectors.rows.length > 0) {
      const byId = new Map(documents.map((document) => [document.note_id, document]));
      const dimensions = vectors.rows[0]!.vector.length;
      const table = await this.vectorTable('vectors', vectors.model, dimensions);
      await mergeNewer(
        table,
        vectors.rows.flatMap(({ noteId, vector }) => {
          const document = byId.get(noteId);
          return document ? [{ ...filterColumns(document), deleted: false, vector: [...vector] }] : [];
        }),
      );
      // A note's chunks are replaced whole, unless the index holds a newer version of it (a replay).
      const chunked = vectors.rows.filter(({ noteId }) => {
        const current = held.get(noteId);
        return byId.has(noteId) && !(current && (current.deleted || current.version > byId.get(noteId)!.version));
      });
      if (chunked.some(({ chunks }) => chunks?.length) || (await this.existingVectorTable('chunks', vectors.model)))
        await this.replaceChunks(
          await this.vectorTable('chunks', vectors.model, dimensions),
          chunked.map((row) => ({ document: byId.get(row.noteId)!, chunks: row.chunks ?? [] })),
        );
    }
    await this.afterWrite(newer.length);
  }

  /** Each note's chunk rows become these (older versions' go first; rows of a newer version stay). */
  private async replaceChunks(
    table: lancedb.Table,
    notes: readonly { document: SearchDocument; chunks: readonly (readonly number[])[] }[],
  ) {
    if (notes.length === 0) return;
    const older = notes
      .map(({ document }) => `(${noteIdsFilter([document.note_id])} AND version < ${document.version})`)
      .join(' OR ');
    await committed(() => table.delete(older));
    const rows = notes.flatMap(({ document, chunks }) =>
      chunks.map((vector, i) => ({
        ...filterColumns(document),
        deleted: false,
        chunk_id: `${document.note_id}#${i}`,
        vector: [...vector],
      })),
    );
    await mergeNewer(table, rows, 'chunk_id');
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
    for (const table of await this.allVectorTables('vectors')) {
      const zero = new Array<number>(await vectorDimensions(table)).fill(0);
      await mergeNewer(
        table,
        rows.map((row) => ({ ...row, vector: zero })),
      );
    }
    // A kept page's chunks go with its note's text (a restore writes them again).
    const gone = noteIdsFilter(rows.map((row) => row.note_id));
    for (const table of await this.allVectorTables('chunks')) await committed(() => table.delete(gone));
    await this.afterWrite(rows.length);
  }

  /** The ids of a user's live notes (a rebuild of one user tombstones those the table no longer has). */
  async liveNoteIds(userId: string): Promise<string[]> {
    const rows = await this.notes.query().where(userFilter(userId)).select(['note_id']).toArray();
    return rows.map((row) => String(row.note_id));
  }

  /** Drops this set's tables (a shard generation a rebuild replaced, once no reader can be in it). */
  async drop() {
    const names = (await this.db.tableNames()).filter(
      (name) =>
        name === this.prefix + NOTES_TABLE ||
        name === this.prefix + RECENT_TABLE ||
        name.startsWith(`${this.prefix}vectors_`) ||
        name.startsWith(`${this.prefix}chunks_`),
    );
    this.close();
    for (const name of names) await this.db.dropTable(name);
  }

  /**
   * Live notes whose ids' positions are in [from, to) (filter.ts) whose vectors in `model` are missing or of an
   * older version: one step of re-embedding from a watermark. The range is a B-tree lookup on
   * `note_id`, so a step reads its range's rows, never the whole table.
   */
  async missingVectorsIn(model: string, from: number, to: number): Promise<SearchDocument[]> {
    const notes = (await this.notes.query().where(noteIdRangeFilter(from, to)).toArray()).map(documentOf);
    if (notes.length === 0) return [];
    const table = await this.existingVectorTable('vectors', model);
    const ids = notes.map((note) => note.note_id);
    const rows = table
      ? await table.query().where(noteIdsFilter(ids)).select(['note_id', 'version']).limit(ids.length).toArray()
      : [];
    const embedded = new Map(rows.map((row) => [String(row.note_id), Number(row.version)]));
    return notes.filter((note) => (embedded.get(note.note_id) ?? -1) < note.version);
  }

  /** Rows of the main table, tombstones included (a count from the table's metadata). */
  async rows(): Promise<number> {
    return this.notes.countRows();
  }

  /**
   * Rows written since the last fold (0 when a fold has nothing to do): the recent table's, or the
   * vector tables' rows their indexes do not cover yet (re-embedding writes only those), whichever is more.
   */
  async unfoldedRows(): Promise<number> {
    const recent = (await (await this.recentTable())?.countRows()) ?? 0;
    const vectors = await Promise.all((await this.allVectorTables()).map(unindexedRows));
    return Math.max(recent, ...vectors);
  }

  /**
   * Folds what was written since the last fold into the indexes of the tables it was written to, and
   * compacts their small files; a table nothing was written to is left as it is (no new version), so a
   * shard with no writes costs a fold nothing. The main table's fold still merges the new rows into its
   * full-text indexes, a cost that grows with the table (LanceDB 0.31's optimize has no option to
   * append a delta index instead: docs/search.md). The recent table then lets go of the notes folded.
   * Each table folded loses its versions older than `keepVersionsSeconds`, with the files only they
   * used: without that a table kept every version it ever had (the judged run's index held 2.4 GB for
   * 12,300 notes, its recent table 4,509 versions in 1.3 GB). Before anything, a note written twice
   * at once (oncePerNote) is left with one row in every table.
   */
  async optimize() {
    const recent = await this.writableRecent();
    const pending = (await recent.query().select(['note_id', 'version']).toArray()).map((row) => ({
      noteId: String(row.note_id),
      version: Number(row.version),
    }));
    const vectorTables = await this.allVectorTables();
    const stale = (
      await Promise.all(vectorTables.map(async (table) => ((await unindexedRows(table)) > 0 ? [table] : [])))
    ).flat();
    if (pending.length === 0 && stale.length === 0) return;
    const written = [...new Set(pending.map(({ noteId }) => noteId))];
    for (const table of [this.notes, ...vectorTables])
      await oneRowEach(table, table.name.startsWith(`${this.prefix}chunks_`) ? 'chunk_id' : 'note_id', written);
    // A recent row whose main-table write has not landed yet (a batch between its two writes) stays.
    const held = await this.versions(pending);
    const folded = pending.filter(({ noteId, version }) => (held.get(noteId)?.version ?? -1) >= version);
    await ensureIndexes(this.notes, MAIN_INDEXES);
    // A semantic query filters by user first: a scalar index on it spares reading every row's user.
    for (const table of stale) {
      await ensureIndexes(table, VECTOR_INDEXES);
      await this.ensureVectorIndex(table);
    }
    const cleanupOlderThan = new Date(Date.now() - this.keepVersionsSeconds * 1000);
    for (const table of [...(pending.length > 0 ? [this.notes] : []), ...stale])
      await committed(() => table.optimize({ cleanupOlderThan }));
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
    if (!this.recent && (await this.db.tableNames()).includes(this.prefix + RECENT_TABLE)) {
      const recent = await openListed(this.db, this.prefix + RECENT_TABLE);
      await withTextFields(recent, FULL_TEXT_INDEXES);
      this.recent = recent;
    }
    return this.recent;
  }

  /** The recent table, made when missing; both tables' indexes are made with it (on no rows, if need be). */
  private async writableRecent(): Promise<lancedb.Table> {
    if (this.recent) return this.recent;
    const recent = await notesTable(this.db, this.prefix + RECENT_TABLE);
    await withTextFields(recent, FULL_TEXT_INDEXES);
    await ensureIndexes(recent, FULL_TEXT_INDEXES);
    await ensureIndexes(this.notes, MAIN_INDEXES);
    this.recent = recent;
    return recent;
  }

  private async vectorTable(kind: VectorKind, model: string, dimensions: number): Promise<lancedb.Table> {
    const name = vectorTableName(kind, model);
    const cached = this.vectorTables.get(name);
    if (cached) return cached;
    const table = await this.db.createEmptyTable(this.prefix + name, vectorsSchema(kind, dimensions), {
      existOk: true,
    });
    this.vectorTables.set(name, table);
    return table;
  }

  private async existingVectorTable(kind: VectorKind, model: string): Promise<lancedb.Table | null> {
    const name = vectorTableName(kind, model);
    const cached = this.vectorTables.get(name);
    if (cached) return cached;
    if (!(await this.db.tableNames()).includes(this.prefix + name)) return null;
    const table = await openListed(this.db, this.prefix + name);
    this.vectorTables.set(name, table);
    return table;
  }

  /** The tables of every model's vectors of one kind, or of both kinds (opened once, as the others are). */
  private async allVectorTables(kind?: VectorKind): Promise<lancedb.Table[]> {
    const kinds = kind ? [kind] : (['vectors', 'chunks'] as const);
    const names = (await this.db.tableNames()).filter((name) =>
      kinds.some((each) => name.startsWith(`${this.prefix}${each}_`)),
    );
    return Promise.all(
      names.map(async (name) => {
        const short = name.slice(this.prefix.length);
        const cached = this.vectorTables.get(short);
        if (cached) return cached;
        const table = await openListed(this.db, name);
        this.vectorTables.set(short, table);
        return table;
      }),
    );
  }
}

/** A connection to the index's location (the tables of every shard, and the layout, share it). */
export function connectIndex(location: IndexLocation): Promise<lancedb.Connection> {
  return lancedb.connect(location.uri, {
    // Lance file format 2.0: 0.31.0's default (2.1) failed to decode its own string pages past ~15,000 notes (npm run bench).
    storageOptions: { new_table_data_storage_version: '2.0', ...location.storageOptions },
    readConsistencyInterval: location.readConsistencySeconds ?? 0,
  });
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
  if ((await db.tableNames()).includes(name)) return openListed(db, name);
  return db.createEmptyTable(name, notesSchema, { existOk: true });
}

/** LanceDB's word for a table another writer is making: listed by name before its first version is written. */
const TABLE_BEING_MADE = /was not found/;

/** Opens a table the folder lists, waiting (as for a commit conflict) while another writer is still making it. */
async function openListed(db: lancedb.Connection, name: string): Promise<lancedb.Table> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.openTable(name);
    } catch (error) {
      if (attempt >= COMMIT_ATTEMPTS || !TABLE_BEING_MADE.test(error instanceof Error ? error.message : String(error)))
        throw error;
      await backoff(attempt);
    }
  }
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

/** Inserts rows the table lacks (by `key`: a note, or a chunk) and replaces rows of an older version; leaves the rest. */
async function mergeNewer(table: lancedb.Table, rows: Record<string, unknown>[], key = 'note_id') {
  if (rows.length === 0) return;
  await committed(() =>
    table
      .mergeInsert(key)
      .whenMatchedUpdateAll({ where: 'target.version < source.version' })
      .whenNotMatchedInsertAll()
      .execute(rows),
  );
}

/** Rows of a vector table its indexes do not cover yet (every row before its first fold made them). */
async function unindexedRows(table: lancedb.Table): Promise<number> {
  const stats = await table.indexStats('note_id_idx');
  return stats ? stats.numUnindexedRows : table.countRows();
}

/**
 * Leaves one row per `key` (a note, or a chunk) of these notes in the table, the highest version's:
 * two writers inserting the same new note at once (a rebuild's scan and the stream's write to the
 * shard it builds) can each add a row, as LanceDB's merge finds no conflict between two inserts. Only
 * notes written since the last fold can have two, so a fold looks at those alone. The extra rows go
 * by row id in one delete; a row id moves when a fold compacts the table, so the rows are read again
 * whenever the table changed between the read and the delete.
 */
async function oneRowEach(table: lancedb.Table, key: 'note_id' | 'chunk_id', noteIds: readonly string[]) {
  for (let start = 0; start < noteIds.length; start += DELETE_CHUNK) {
    const some = noteIds.slice(start, start + DELETE_CHUNK);
    await committed(async () => {
      const version = await table.version();
      const rows = await table.query().where(noteIdsFilter(some)).withRowId().select([key, 'version']).toArray();
      const kept = new Map<string, { rowId: bigint; version: number }>();
      const extra: bigint[] = [];
      for (const row of rows) {
        const found = { rowId: row._rowid as bigint, version: Number(row.version) };
        const other = kept.get(String(row[key]));
        if (!other) kept.set(String(row[key]), found);
        else if (found.version > other.version) {
          extra.push(other.rowId);
          kept.set(String(row[key]), found);
        } else extra.push(found.rowId);
      }
      if (extra.length === 0) return;
      if ((await table.version()) !== version)
        throw new Error('Retryable commit conflict: the table changed meanwhile');
      await table.delete(`_rowid IN (${extra.join(', ')})`);
    });
  }
}

/**
 * LanceDB's words for a commit another writer got in first: "Retryable commit conflict", or, when two
 * folds compact one table at once, "Commit conflict … This Rewrite transaction was preempted by
 * concurrent transaction Rewrite … Please retry". The same write again, on the new version, succeeds.
 */
const RETRYABLE_CONFLICT = /Retryable commit conflict|was preempted by concurrent transaction/;
const COMMIT_ATTEMPTS = 10;

/**
 * A write to a table, tried again (jittered exponential backoff, up to a second a wait) while another
 * writer's commit pre-empts it: the scheduled fold, an operator's reindex, a second stream shard.
 * Every write here is idempotent (merges move notes forward only; folds, deletes and indexes may
 * run twice), so a retry is safe. A conflict past the attempts fails the batch, as any error does.
 */
export async function committed<T>(write: () => Promise<T>, attempts = COMMIT_ATTEMPTS): Promise<T> {
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

/** A model name as a table name (after its kind): letters, digits and `_` only, with a digest so two names never collide. */
function vectorTableName(kind: VectorKind, model: string): string {
  const readable = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 40);
  let hash = 0;
  for (const char of model) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return `${kind}_${readable}_${hash.toString(16)}`;
}

/**
 * Each note's first row: two writers inserting the same new note at once can each add a row
 * (oneRowEach), which the next fold makes one; until then a read shows the note once.
 */
function oncePerNote<T extends Record<string, unknown>>(rows: readonly T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const noteId = String(row.note_id);
    if (seen.has(noteId)) return false;
    seen.add(noteId);
    return true;
  });
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
