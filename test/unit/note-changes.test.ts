import { describe, expect, it } from 'vitest';
import { noteChangeOf } from '../../functions/adapters/search/note-changes';

/** Stream records as note changes: other items are skipped before they are read. */
describe('noteChangeOf', () => {
  it('skips an OAuth artifact whose payload holds an empty map, as DynamoDB Local streams write it ({})', () => {
    const record = {
      eventName: 'INSERT' as const,
      dynamodb: {
        NewImage: {
          pk: { S: 'OIDC#Interaction#abc' },
          sk: { S: 'OIDC' },
          payload: { M: { params: {}, kind: { S: 'Interaction' } } },
        } as never,
      },
    };
    expect(noteChangeOf(record)).toBeNull();
  });
});
