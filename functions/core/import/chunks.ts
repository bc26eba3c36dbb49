import { derivedId } from '../save/idempotency';
import { isoTimestamp } from '../text/text';
import { type ImportedArticlePorts, importedArticles } from './articles';
import {
  entriesOf,
  type ImportLink,
  type ImportPorts,
  type ImportReport,
  importEntries,
  type PreparedImport,
  prepareImport,
} from './import';
import { ImportFileError, type ParsedImport } from './items';
import {
  type ChunkCounts,
  IMPORT_LOCK_SECONDS,
  type ImportChunkMessage,
  type ImportJob,
  type ImportJobPorts,
  now,
  openImport,
  type UploadStore,
} from './job';
import { listedNote } from './notes';

/**
 * The import worker's side of an import (job.ts has the API's): each chunk reads the export again,
 * saves its slice of the links and records its counts once. Kept apart from job.ts so the per-user
 * API's function does not carry the parsers and fflate.
 */

/** Links a chunk saves: about 10 seconds of saves, well within a worker's 30. */
export const IMPORT_CHUNK_LINKS = 200;

export type ChunkOutcome = 'imported' | 'finished' | 'already-done' | 'gone';

/**
 * A chunk of an import: reads the export again (the same file and the same start time give the same
 * links), saves its slice of them and records the counts once; then queues the next chunk, or ends
 * the import. A chunk whose counts are recorded already only makes sure the next one is queued.
 */
interface ChunkPorts extends ImportJobPorts {
  /** The save core's ports for the import's saves (its new bookmarks wait in the import backlog for enrichment). */
  readonly save: (job: ImportJob) => ImportPorts;
  /**
   * The export last read, kept by a worker between messages: a warm worker reads an import's file
   * once rather than once a chunk (the same file and start time give the same links either way).
   */
  readonly lastRead?: { current: { importId: string; prepared: PreparedImport } | null };
}

export async function runImportChunk(ports: ChunkPorts, message: ImportChunkMessage): Promise<ChunkOutcome> {
  const job = await ports.imports.getImport(message.user_id, message.import_id);
  if (!job || job.status === 'done' || job.status === 'failed' || job.status === 'uploading') return 'gone';
  if (job.chunksDone > message.chunk) {
    if (job.chunksDone === message.chunk + 1) await next(ports, job, job.chunksDone);
    return 'already-done';
  }
  if (job.chunksDone < message.chunk) throw new Error(`Chunk ${message.chunk} came before chunk ${job.chunksDone}`);
  const kept = ports.lastRead?.current?.importId === job.id ? ports.lastRead.current.prepared : null;
  const prepared = kept ?? (await readPrepared(ports, job));
  if (!prepared) return 'finished';
  if (ports.lastRead) ports.lastRead.current = { importId: job.id, prepared };
  const entries = entriesOf(prepared);
  if (message.chunk === 0) {
    const { format, rows, skipped, notices } = prepared;
    const listed = { skipped, notes: prepared.notes.map(listedNote) };
    await ports.imports.beginImport(job, { format, rows, links: entries.length, notices }, listed, now(ports));
  }
  const start = message.chunk * IMPORT_CHUNK_LINKS;
  const slice = entries.slice(start, start + IMPORT_CHUNK_LINKS);
  const counts = await importEntries(ports.save(job), job.userId, slice, linkIds(job.id));
  // At the note cap the rest of the export is not tried: each entry would only meet it again.
  const rest = counts.over_cap ? entries.length - start - slice.length : 0;
  const chunk: ChunkCounts = {
    ...counts,
    over_cap: counts.over_cap + rest,
    done: slice.length + rest,
    noteCap: counts.note_cap,
  };
  if (!(await ports.imports.recordChunk(job, message.chunk, chunk, now(ports)))) return 'already-done';
  const recorded = await ports.imports.getImport(job.userId, job.id);
  if (!recorded) return 'gone';
  await next(ports, recorded, message.chunk + 1);
  return 'imported';
}

/** The file read and its rows prepared; null (the import failed, and says why) for a file that cannot be imported. */
async function readPrepared(ports: ImportJobPorts, job: ImportJob): Promise<PreparedImport | null> {
  const bytes = await ports.uploads.read(job.uploadKey);
  if (!bytes) {
    await finish(ports, job, 'failed', 'The uploaded file is gone');
    return null;
  }
  // The readers of every format (linkedom, csv-parse, fflate…) load with the first chunk that reads a file.
  const { readExport } = await import('./detect');
  try {
    return prepareImport(readExport([{ name: job.fileName, bytes }]), new Date(job.created));
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    await finish(ports, job, 'failed', error.message);
    return null;
  }
}

async function next(ports: ImportJobPorts, job: ImportJob, chunk: number): Promise<void> {
  if (job.done < (job.links ?? 0)) await ports.queue.publish({ user_id: job.userId, import_id: job.id, chunk });
  else await finish(ports, job, 'done', null);
}

async function finish(ports: ImportJobPorts, job: ImportJob, status: 'done' | 'failed', error: string | null) {
  await ports.imports.finishImport(job, { status, error }, now(ports));
  // The file is not kept once read: the workspace holds what it carried.
  await ports.uploads.remove(job.uploadKey);
}

/** What an import's saves are made of, for the worker and for an import run here alike. */
export interface ImportSaveDeps {
  /** The bookmark store whose new bookmarks wait in this import's backlog (from `since`) for their enrichment. */
  readonly store: (backlog: { importId: string; since: string }) => ImportPorts['store'];
  /** Where the readable copies an export carries are kept, and the bookmarks' record of them (none: they are left out). */
  readonly articles: Omit<ImportedArticlePorts, 'now'> | null;
  readonly newId: () => string;
  readonly now: () => Date;
  readonly logger: ImportPorts['logger'];
}

/**
 * The save core's ports for an import's saves: its new bookmarks queue no enrichment of their own
 * but wait in the import backlog, from which the sweeper hands the page worker a bounded batch.
 */
export const importSaves =
  (deps: ImportSaveDeps) =>
  (job: ImportJob): ImportPorts => ({
    store: deps.store({ importId: job.id, since: isoTimestamp(deps.now()) }),
    enrichment: { publish: async () => {} },
    newId: deps.newId,
    now: deps.now,
    logger: deps.logger,
    articles: deps.articles && importedArticles({ ...deps.articles, now: deps.now }),
  });

/** A link's ids, named after the import and the link's place in the export: the same on every run of its chunk. */
const linkIds =
  (importId: string) =>
  (link: ImportLink): (() => string) => {
    let made = 0;
    return () => derivedId(`import\n${importId}\n${link.file ?? ''}\n${link.row}\n${made++}`);
  };

/** The file of an import run here: never uploaded, it is read once, in this process. */
const NO_UPLOAD: UploadStore = {
  uploadTarget: async () => {
    throw new Error('An import run in this process takes no upload');
  },
  read: async () => null,
  remove: async () => {},
};

/**
 * An export imported here and now (`gleaner import`), as the import worker imports an upload: the
 * import is recorded as the API's are (one at a time per account, listed in Settings › Import with
 * its report), its chunks run one after another in this process through runImportChunk, and its new
 * bookmarks wait in the import backlog, from which the sweeper hands the page worker a bounded batch
 * at a time. Should a chunk fail, the import is ended as failed (the account free for the next one).
 */
export async function importHere(
  ports: Omit<ChunkPorts, 'uploads' | 'queue' | 'lastRead'>,
  userId: string,
  fileName: string,
  parsed: ParsedImport,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<ImportReport & { import_id: string; enrichment_waiting: number }> {
  const opened = await openImport(ports, userId, fileName, IMPORT_LOCK_SECONDS);
  if (!(await ports.imports.queueImport(opened, IMPORT_LOCK_SECONDS, now(ports))))
    throw new Error(`Import ${opened.id} was taken over before it started`);
  const prepared = prepareImport(parsed, new Date(opened.created));
  const queued: ImportChunkMessage[] = [{ user_id: userId, import_id: opened.id, chunk: 0 }];
  const here: ChunkPorts = {
    ...ports,
    uploads: NO_UPLOAD,
    queue: { publish: async (message) => void queued.push(message) },
    lastRead: { current: { importId: opened.id, prepared } },
  };
  try {
    for (let message = queued.shift(); message; message = queued.shift()) {
      await runImportChunk(here, message);
      const progress = await ports.imports.getImport(userId, opened.id);
      onProgress(progress?.done ?? 0, progress?.links ?? 0);
    }
  } catch (error) {
    await finish(here, opened, 'failed', `Stopped by an error: ${String(error)}`);
    throw error;
  }
  const job = (await ports.imports.getImport(userId, opened.id))!;
  return {
    import_id: job.id,
    format: prepared.format,
    rows: prepared.rows,
    imported: job.imported,
    merged: job.merged,
    notes: job.notes,
    highlights: job.highlights,
    articles: job.articles,
    skipped: prepared.skipped,
    notes_without_bookmark: prepared.notes.map(listedNote),
    over_cap: job.over_cap,
    note_cap: job.noteCap,
    notices: prepared.notices,
    enrichment_waiting: job.enrichmentWaiting,
  };
}
