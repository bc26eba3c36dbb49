import { describe, expect, it } from 'vitest';
import { TransactionSteps } from '../../functions/adapters/dynamo/conditional-write';

const put = (pk: string) => ({ Put: { TableName: 't', Item: { pk, sk: pk } } });

describe('a transaction of named steps', () => {
  it('reads a refused condition back by its step, wherever the step sits and however many actions come before it', () => {
    const withAnswer = new TransactionSteps<'answer' | 'marker' | 'tags'>()
      .add('answer', put('a'))
      .add('tags', put('t1'), put('t2'))
      .add('marker', put('m'));
    const withoutAnswer = new TransactionSteps<'answer' | 'marker' | 'tags'>()
      .add('answer')
      .add('tags', put('t1'))
      .add('marker', put('m'));
    const marker = { item: { pk: { S: 'm' } } };
    expect(withAnswer.refused('marker', [null, null, null, marker])).toBe(marker);
    expect(withAnswer.refused('answer', [null, null, null, marker])).toBeNull();
    expect(withoutAnswer.refused('marker', [null, marker])).toBe(marker);
    expect(withoutAnswer.refused('answer', [null, marker])).toBeNull();
    expect(withoutAnswer.actions).toHaveLength(2);
  });

  it('makes the outcome of one step refusing, aligned with the actions', () => {
    const steps = new TransactionSteps<'answer' | 'marker'>().add('answer', put('a')).add('marker', put('m'));
    const refusal = steps.refusal('marker', { pk: { S: 'm' } });
    expect(refusal.failed).toEqual([null, { item: { pk: { S: 'm' } } }]);
    expect(steps.refused('marker', refusal.failed)?.item).toEqual({ pk: { S: 'm' } });
  });
});
