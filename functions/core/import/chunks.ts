import { derivedId } from '../save/idempotency';
import { readExport } from './detect';
import { type ImportLink, type ImportPorts, importLinks, type PreparedImport, prepareImport } from './import';
import { ImportFileError } from './items';
import { type ChunkCounts, type ImportChunkMessage, type ImportJob, type ImportJobPorts, now } from './job';

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
export async function runImportChunk(
  ports: ImportJobPorts & {
    /** The save core's ports for the import's saves (its new bookmarks wait in the import backlog for enrichment). */
    readonly save: (job: ImportJob) => ImportPorts;
    /**
     * The export last read, kept by a worker between messages: a warm worker reads an import's file
     * once rather than once a chunk (the same file and start time give the same links either way).
     */
    readonly lastRead?: { current: { importId: string; prepared: PreparedImport } | null };
  },
  message: ImportChunkMessage,
): Promise<ChunkOutcome> {
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
  if (message.chunk === 0) {
    const { format, rows, links, skipped, notices } = prepared;
    await ports.imports.beginImport(job, { format, rows, links: links.length, notices }, skipped, now(ports));
  }
  const start = message.chunk * IMPORT_CHUNK_LINKS;
  const slice = prepared.links.slice(start, start + IMPORT_CHUNK_LINKS);
  const counts = await importLinks(ports.save(job), job.userId, slice, undefined, linkIds(job.id));
  // At the note cap the rest of the export is not tried: each link would only meet it again.
  const rest = counts.over_cap ? prepared.links.length - start - slice.length : 0;
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

/** A link's ids, named after the import and the link's place in the export: the same on every run of its chunk. */
const linkIds =
  (importId: string) =>
  (link: ImportLink): (() => string) => {
    let made = 0;
    return () => derivedId(`import\n${importId}\n${link.file ?? ''}\n${link.row}\n${made++}`);
  };
