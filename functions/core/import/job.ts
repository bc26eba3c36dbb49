import type { Principal } from '../identity/principal';
import { ConflictError, NotFoundError } from '../owner/library';
import { isoTimestamp } from '../text/text';
import type { ImportCounts } from './import';
import type { ImportFormat } from './items';
import type { ListedNote } from './notes';

/**
 * An import as the web app and the API run it: the file is uploaded first (to S3 through a presigned
 * URL on AWS, to the local stack's folder locally), then a worker imports its links in chunks, one
 * queue message per chunk. Each chunk's counts are recorded once, conditional on the chunks done
 * before it, and each link's save names its ids after the import and the row, so a chunk run again
 * (a redelivered message, a crash mid-chunk) finds what it wrote and writes nothing twice. One
 * import runs per account at a time.
 */

type ImportStatus = 'uploading' | 'queued' | 'running' | 'done' | 'failed';

export interface ImportJob extends Omit<ImportCounts, 'note_cap'> {
  readonly id: string;
  readonly userId: string;
  readonly fileName: string;
  /** Where the upload is kept (its object key). */
  readonly uploadKey: string;
  readonly status: ImportStatus;
  readonly created: string;
  readonly updated: string;
  readonly finished: string | null;
  /** Known once the worker has read the file. */
  readonly format: ImportFormat | null;
  readonly rows: number | null;
  /** Links (and notes without a page) to save: rows less those skipped and folded into others; and how many were. */
  readonly links: number | null;
  readonly done: number;
  readonly chunksDone: number;
  readonly skippedCount: number;
  readonly notices: readonly string[];
  readonly noteCap: number | null;
  /** Why a failed import failed (a file of no known format names the formats Gleaner knows). */
  readonly error: string | null;
  /** New bookmarks whose page has not been handed to the page worker yet (the enrichment backlog). */
  readonly enrichmentWaiting: number;
}

interface SkippedImportRow {
  readonly file?: string;
  readonly row: number;
  readonly reason: string;
}

/** What the report lists: every row skipped, and every note without a bookmark. */
export interface ImportListed {
  readonly skipped: readonly SkippedImportRow[];
  readonly notes: readonly ListedNote[];
}

/** What a chunk adds to its import's counts. */
export interface ChunkCounts extends Omit<ImportCounts, 'note_cap'> {
  readonly done: number;
  readonly noteCap: number | null;
}

export interface ImportStore {
  /** Creates the import unless the user has one under way (its id is returned then). */
  createImport(job: ImportJob, lockSeconds: number): Promise<{ created: true } | { created: false; active: string }>;
  /** The user's import: another user's id finds nothing. */
  getImport(userId: string, importId: string): Promise<ImportJob | null>;
  /** The user's imports, newest first. */
  listImports(userId: string, limit: number): Promise<ImportJob[]>;
  /** `uploading` → `queued`, holding the account for IMPORT_LOCK_SECONDS; false when it was not uploading. */
  queueImport(job: ImportJob, lockSeconds: number, updated: string): Promise<boolean>;
  /** What reading the file found, written once (a rerun of the first chunk finds it written). */
  beginImport(
    job: ImportJob,
    found: { format: ImportFormat; rows: number; links: number; notices: readonly string[] },
    listed: ImportListed,
    updated: string,
  ): Promise<void>;
  /** Adds a chunk's counts unless they were added already (`chunksDone` is no longer `chunk`): false then. */
  recordChunk(job: ImportJob, chunk: number, counts: ChunkCounts, updated: string): Promise<boolean>;
  /** Ends it (`done` or `failed`) and frees the user for the next import. */
  finishImport(job: ImportJob, outcome: { status: 'done' | 'failed'; error: string | null }, at: string): Promise<void>;
  /** Its skipped rows and notes without a bookmark, as beginImport wrote them. */
  listed(job: ImportJob): Promise<ImportListed>;
}

/** Where uploads are kept: a private bucket on AWS, the local stack's folder locally. */
export interface UploadStore {
  /** Where the client sends the file (an HTTP PUT), valid for `seconds`. */
  uploadTarget(key: string, seconds: number): Promise<{ url: string; headers: Record<string, string> }>;
  read(key: string): Promise<Uint8Array | null>;
  remove(key: string): Promise<void>;
}

export interface ImportChunkMessage {
  readonly user_id: string;
  readonly import_id: string;
  readonly chunk: number;
}

export interface ImportJobPorts {
  readonly imports: ImportStore;
  readonly uploads: UploadStore;
  readonly queue: { publish(message: ImportChunkMessage): Promise<void> };
  readonly newId: () => string;
  readonly now: () => Date;
}

/** How long an upload may take before the account may start another import instead. */
const UPLOAD_SECONDS = 60 * 60;
/** How long an import may hold the account before another may start (a stuck one is given up). */
export const IMPORT_LOCK_SECONDS = 24 * 60 * 60;
/** The longest file name kept (it names the import in lists). */
const FILE_NAME_MAX_LENGTH = 200;

/** Another import of the account is under way. */
export class ImportInProgressError extends ConflictError {
  constructor(readonly active: string) {
    super(`Import ${active} is still under way: one import runs per account at a time`);
  }
}

/** Starting an import that is not waiting for its upload (started already, or finished). */
class ImportNotUploadingError extends ConflictError {}

/** Step one: the import, and where to upload its file. */
export async function createImport(
  ports: ImportJobPorts,
  principal: Principal,
  fileName: string,
): Promise<{ job: ImportJob; upload: { method: 'PUT'; url: string; headers: Record<string, string> } }> {
  const job = await openImport(ports, principal.userId, fileName, UPLOAD_SECONDS);
  const target = await ports.uploads.uploadTarget(job.uploadKey, UPLOAD_SECONDS);
  return { job, upload: { method: 'PUT', ...target } };
}

/**
 * A new import of the user's, holding the account for `lockSeconds` (ImportInProgressError while
 * another import holds it).
 */
export async function openImport(
  ports: Pick<ImportJobPorts, 'imports' | 'newId' | 'now'>,
  userId: string,
  fileName: string,
  lockSeconds: number,
): Promise<ImportJob> {
  const id = ports.newId();
  const now = isoTimestamp(ports.now());
  const name = fileName.replace(/[\\/]+/g, '_').slice(0, FILE_NAME_MAX_LENGTH);
  const job: ImportJob = {
    id,
    userId,
    fileName: name,
    uploadKey: `imports/${userId}/${id}/${ports.newId()}`,
    status: 'uploading',
    created: now,
    updated: now,
    finished: null,
    format: null,
    rows: null,
    links: null,
    done: 0,
    chunksDone: 0,
    imported: 0,
    merged: 0,
    notes: 0,
    highlights: 0,
    articles: 0,
    over_cap: 0,
    noteCap: null,
    skippedCount: 0,
    notices: [],
    error: null,
    enrichmentWaiting: 0,
  };
  const created = await ports.imports.createImport(job, lockSeconds);
  if (!created.created) throw new ImportInProgressError(created.active);
  return job;
}

/** The caller's import; ImportNotFoundError for another account's. */
export async function ownImport(ports: Pick<ImportJobPorts, 'imports'>, principal: Principal, importId: string) {
  const job = await ports.imports.getImport(principal.userId, importId);
  if (!job) throw new NotFoundError('No such import');
  return job;
}

/** Step two, once the file is uploaded: the worker takes it from here. */
export async function startImport(ports: ImportJobPorts, principal: Principal, importId: string): Promise<ImportJob> {
  const job = await ownImport(ports, principal, importId);
  if (job.status !== 'uploading')
    throw new ImportNotUploadingError(`The import is ${job.status}, not waiting for its file`);
  if (!(await ports.uploads.read(job.uploadKey)))
    throw new ImportNotUploadingError('The file has not been uploaded yet: PUT it to the upload URL first');
  if (!(await ports.imports.queueImport(job, IMPORT_LOCK_SECONDS, now(ports))))
    throw new ImportNotUploadingError('The import was started already');
  await ports.queue.publish({ user_id: job.userId, import_id: job.id, chunk: 0 });
  return ownImport(ports, principal, job.id);
}

export const now = (ports: Pick<ImportJobPorts, 'now'>) => isoTimestamp(ports.now());
