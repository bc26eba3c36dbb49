/**
 * A commit another writer pre-empted (LanceDB's "Retryable commit conflict": the scheduled fold, an
 * operator's rebuild, two shards of a reshard writing one new shard) is tried again; other errors,
 * and a conflict past the attempts, fail the write as they are.
 */
import { describe, expect, it } from 'vitest';
import { committed } from '../../functions/adapters/search/lance-index';

const conflict = () =>
  new Error(
    'lance error: Retryable commit conflict for version 7: This Update transaction was preempted by concurrent transaction Rewrite at version 7',
  );

/** A write that fails with these errors in turn, then answers 'written'. */
function writeFailing(...errors: Error[]) {
  let calls = 0;
  return {
    write: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return 'written';
    },
    calls: () => calls,
  };
}

describe('a commit another writer pre-empted', () => {
  it('is tried again until it lands', async () => {
    const writer = writeFailing(conflict(), conflict());
    await expect(committed(writer.write)).resolves.toBe('written');
    expect(writer.calls()).toBe(3);
  });

  it('is tried again when two folds compacted one table at once', async () => {
    const writer = writeFailing(
      new Error(
        'lance error: Commit conflict for version 12: This Rewrite transaction was preempted by concurrent transaction Rewrite at version 12. Please retry.',
      ),
    );
    await expect(committed(writer.write)).resolves.toBe('written');
    expect(writer.calls()).toBe(2);
  });

  it('fails the write after its attempts, with the conflict', async () => {
    const writer = writeFailing(conflict(), conflict(), conflict());
    await expect(committed(writer.write, 3)).rejects.toThrow(/Retryable commit conflict/);
    expect(writer.calls()).toBe(3);
  });

  it('is the only error tried again', async () => {
    const writer = writeFailing(new Error('Table was not found'));
    await expect(committed(writer.write)).rejects.toThrow('Table was not found');
    expect(writer.calls()).toBe(1);
  });
});
