import * as z from 'zod/mini';
import { ownerApiSchemas } from '../owner/api';
import type { ImportJob, ImportListed } from './job';

/**
 * Imports in the per-user API (`/api/v2/me/imports…`), as zod schemas registered with the owner
 * API's: the handler parses requests with them and `/openapi/v2.json` is generated from them.
 */

const uuid = z.guid();
const dateTime = z.iso.datetime({ offset: true });
const count = z.int().check(z.minimum(0));

export const importCreateSchema = z
  .object({ file_name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)) })
  .register(ownerApiSchemas, {
    id: 'ImportCreate',
    description:
      'The name of the file to import (a zip, CSV, JSON or HTML export): the format is told by its content, the name decides only where the content cannot (a Pocket `part_000000.csv`).',
  });

const skippedRowSchema = z
  .object({ file: z.optional(z.string()), row: z.int(), reason: z.string() })
  .register(ownerApiSchemas, {
    id: 'ImportSkippedRow',
    description:
      'A row left out, and why: `not an http(s) URL (javascript:)`, `malformed: …`, `duplicate of row N (merged into it)`. Row 1 is the first record after a CSV header or the first entry of a JSON list; `file` names the file of an export of several.',
  });

const listedNoteSchema = z
  .object({ file: z.optional(z.string()), row: z.int(), title: z.string(), highlights: count })
  .register(ownerApiSchemas, {
    id: 'ImportNoteWithoutBookmark',
    description:
      'A note the import keeps without a bookmark, as the export names no page for it: a book of Readwise highlights that match no document (one note per book), a Karakeep text bookmark. `highlights`: how many the export holds for it; `row` (and `file`) where it starts.',
  });

const importSchema = z
  .object({
    id: uuid,
    status: z.enum(['uploading', 'queued', 'running', 'done', 'failed']),
    file_name: z.string(),
    created: dateTime,
    updated: dateTime,
    finished: z.nullable(dateTime),
    format: z.nullable(z.string()),
    rows: z.nullable(count),
    links: z.nullable(count),
    done: count,
    imported: count,
    merged: count,
    notes: count,
    highlights: count,
    articles: count,
    skipped_count: count,
    over_cap: count,
    note_cap: z.nullable(count),
    enrichment_waiting: count,
    notices: z.array(z.string()),
    error: z.nullable(z.string()),
    skipped: z.optional(z.array(skippedRowSchema)),
    notes_without_bookmark: z.optional(z.array(listedNoteSchema)),
  })
  .register(ownerApiSchemas, {
    id: 'Import',
    description:
      "An import and its progress. `uploading`: waiting for its file; `queued`, `running`: the worker imports it in chunks (it goes on with the tab closed); `done`; `failed` (`error` says why: a file of no known format names the formats Gleaner knows). Once the file is read: its `format`, the `rows` read and the `links` to save, `done` of them so far: `imported` (new notes), `merged` (pages already saved: tags and new highlights added; notes without a page already there), `notes` (new notes without a bookmark, listed in `notes_without_bookmark` when one import is read), `highlights` written, `articles` kept; `skipped_count` rows left out (listed in `skipped` when one import is read), `over_cap` links not imported at the note cap (`note_cap`). `enrichment_waiting`: new notes whose page waits to be fetched (description, icon, article); an import's pages are fetched a bounded number at a time. `notices`: what the export could not carry.",
  });

// Registered for /openapi/v2.json: the handler answers in these shapes.
z.object({
  import: importSchema,
  upload: z.object({ method: z.literal('PUT'), url: z.url(), headers: z.record(z.string(), z.string()) }),
}).register(ownerApiSchemas, {
  id: 'CreatedImport',
  description:
    'The import, waiting for its file: PUT the file to `upload.url` (with `upload.headers`; on AWS a presigned S3 URL, valid for an hour, so large files pass no API limit), then start it.',
});

z.object({ imports: z.array(importSchema) }).register(ownerApiSchemas, {
  id: 'ImportList',
  description: 'The account’s imports, newest first (the last 20).',
});

export type ImportResource = z.infer<typeof importSchema>;

export function importResource(job: ImportJob, listed?: ImportListed): ImportResource {
  return {
    id: job.id,
    status: job.status,
    file_name: job.fileName,
    created: job.created,
    updated: job.updated,
    finished: job.finished ?? null,
    format: job.format ?? null,
    rows: job.rows ?? null,
    links: job.links ?? null,
    done: job.done,
    imported: job.imported,
    merged: job.merged,
    // Imports from before notes without a bookmark were imported count none.
    notes: job.notes ?? 0,
    highlights: job.highlights,
    articles: job.articles,
    skipped_count: job.skippedCount,
    over_cap: job.over_cap,
    note_cap: job.noteCap ?? null,
    enrichment_waiting: Math.max(0, job.enrichmentWaiting),
    notices: [...(job.notices ?? [])],
    error: job.error ?? null,
    ...(listed ? { skipped: [...listed.skipped], notes_without_bookmark: [...listed.notes] } : {}),
  };
}
