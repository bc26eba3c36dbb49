import type { ChunkCounts, ImportJob, ImportListed, ImportStore } from '../../functions/core/import/job';

/**
 * The import store kept in memory, with the rules the DynamoDB store keeps by its conditions: one
 * import under way per account, what reading the file found written once, each chunk's counts added
 * once (in order). For unit tests of imports over the in-memory bookmark store.
 */
export class InMemoryImportStore implements ImportStore {
  readonly jobs = new Map<string, ImportJob>();
  private readonly locks = new Map<string, { importId: string; until: number }>();
  private readonly lists = new Map<string, ImportListed>();

  async createImport(job: ImportJob, lockSeconds: number) {
    const now = Date.parse(job.created) / 1000;
    const lock = this.locks.get(job.userId);
    if (lock && lock.until >= now) return { created: false as const, active: lock.importId };
    this.locks.set(job.userId, { importId: job.id, until: now + lockSeconds });
    this.jobs.set(job.id, job);
    return { created: true as const };
  }

  async getImport(userId: string, importId: string) {
    const job = this.jobs.get(importId);
    return job?.userId === userId ? job : null;
  }

  async listImports(userId: string, limit: number) {
    return [...this.jobs.values()].filter((job) => job.userId === userId).slice(0, limit);
  }

  async queueImport(job: ImportJob, _lockSeconds: number, updated: string) {
    const stored = this.jobs.get(job.id);
    if (stored?.status !== 'uploading') return false;
    this.jobs.set(job.id, { ...stored, status: 'queued', updated });
    return true;
  }

  async beginImport(
    job: ImportJob,
    found: Pick<ImportJob, 'format' | 'rows' | 'links' | 'notices'>,
    listed: ImportListed,
    updated: string,
  ) {
    this.lists.set(job.id, listed);
    const stored = this.jobs.get(job.id)!;
    if (stored.status === 'queued')
      this.jobs.set(job.id, { ...stored, ...found, status: 'running', skippedCount: listed.skipped.length, updated });
  }

  async recordChunk(job: ImportJob, chunk: number, counts: ChunkCounts, updated: string) {
    const stored = this.jobs.get(job.id)!;
    if (stored.chunksDone !== chunk) return false;
    const add = (name: 'done' | 'imported' | 'merged' | 'notes' | 'highlights' | 'articles' | 'over_cap') =>
      stored[name] + counts[name];
    this.jobs.set(job.id, {
      ...stored,
      chunksDone: chunk + 1,
      updated,
      noteCap: counts.noteCap ?? stored.noteCap,
      done: add('done'),
      imported: add('imported'),
      merged: add('merged'),
      notes: add('notes'),
      highlights: add('highlights'),
      articles: add('articles'),
      over_cap: add('over_cap'),
      enrichmentWaiting: stored.enrichmentWaiting + counts.imported,
    });
    return true;
  }

  async finishImport(job: ImportJob, outcome: { status: 'done' | 'failed'; error: string | null }, at: string) {
    const stored = this.jobs.get(job.id)!;
    this.jobs.set(job.id, { ...stored, ...outcome, finished: stored.finished ?? at, updated: at });
    if (this.locks.get(job.userId)?.importId === job.id) this.locks.delete(job.userId);
  }

  async listed(job: ImportJob): Promise<ImportListed> {
    return this.lists.get(job.id) ?? { skipped: [], notes: [] };
  }
}
