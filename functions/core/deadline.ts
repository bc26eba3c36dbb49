/**
 * When a request must be done by. Every retry loop asks it before waiting for another attempt, so
 * retries under contention or throttling end with a clean error while there is still time to answer
 * (past the function's timeout, Lambda would kill the request and API Gateway answer 502).
 */
export class Deadline {
  private constructor(
    private readonly at: number,
    private readonly now: () => number,
  ) {}

  /** `budgetMs` from now. */
  static after(budgetMs: number, now: () => number = Date.now): Deadline {
    return new Deadline(now() + budgetMs, now);
  }

  /** No limit: for callers without a time budget (the CLI, migrations). */
  static none(): Deadline {
    return new Deadline(Number.POSITIVE_INFINITY, Date.now);
  }

  remainingMs(): number {
    return Math.max(0, this.at - this.now());
  }

  /** Throws DeadlineExceededError unless `waitMs` more (and then another attempt) still fit. */
  allowWait(waitMs: number, what: string): void {
    if (this.now() + waitMs >= this.at)
      throw new DeadlineExceededError(`Out of time for ${what}: ${this.remainingMs()} ms left`);
  }
}

export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
}

/**
 * A write that kept losing the race for the same items until its attempts ran out. Like a passed
 * deadline it is a temporary fault: nothing was written, and the request may be tried again.
 */
export class ContentionError extends Error {
  override readonly name = 'ContentionError';
}
