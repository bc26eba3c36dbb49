import * as z from 'zod/mini';
import type { RetagJob } from '../../../core/owner/library';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * An unfinished rename or merge of a tag, in its user's partition (deleting the account deletes it),
 * listed in the index of every user's jobs by when a run may take it up.
 */
export function retagJobItem(job: RetagJob) {
  return {
    ...keys.retagJob(job.userId, job.from),
    ...keys.retagJobsIndex(job.resumeAt, job.userId, job.from),
    type: 'RetagJob',
    ...job,
  };
}

const decodeRetagJob = itemCodec('RetagJob', () =>
  z.object({
    userId: z.string(),
    from: z.string(),
    to: z.string(),
    mode: z.enum(['rename', 'merge']),
    started: z.string(),
    notesChanged: z.number(),
    // Jobs recorded before runs had a budget have none: due at once.
    resumeAt: z.optional(z.string()),
  }),
);

/** A job item as the job; MalformedItemError when it is not one. */
export function readRetagJob(item: Record<string, unknown>): RetagJob {
  const job = decodeRetagJob(item);
  return { ...job, resumeAt: job.resumeAt ?? job.started };
}
