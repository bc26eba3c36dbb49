import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalQueue, type LocalQueueOptions, QueueUnavailableError } from '../../local/queue';
import { LocalSqsEndpoint } from '../../local/sqs-endpoint';

const queues: LocalQueue[] = [];

afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.stop()));
});

function makeQueue(options: Partial<LocalQueueOptions> = {}): LocalQueue {
  const queue = new LocalQueue({ name: 'test-queue', visibilityTimeoutSeconds: 0.1, ...options });
  queues.push(queue);
  return queue;
}

interface Delivery {
  readonly at: number;
  readonly records: SQSRecord[];
}

/**
 * Attaches a consumer that records every batch; `decide` returns the bodies to report as failed
 * (or throws to fail the whole batch).
 */
function consume(
  queue: LocalQueue,
  decide: (records: SQSRecord[], delivery: number) => string[] = () => [],
  batchSize?: number,
): Delivery[] {
  const deliveries: Delivery[] = [];
  queue.attachConsumer(
    async (event: SQSEvent): Promise<SQSBatchResponse> => {
      deliveries.push({ at: Date.now(), records: event.Records });
      const failedBodies = decide(event.Records, deliveries.length);
      return {
        batchItemFailures: event.Records.filter((record) => failedBodies.includes(record.body)).map((record) => ({
          itemIdentifier: record.messageId,
        })),
      };
    },
    { batchSize, pollIntervalMs: 10 },
  );
  return deliveries;
}

const bodies = (delivery: Delivery | undefined) => delivery?.records.map((record) => record.body);
const receiveCounts = (delivery: Delivery | undefined) =>
  delivery?.records.map((record) => record.attributes.ApproximateReceiveCount);

describe('delivery', () => {
  it('delivers SQS-shaped records', async () => {
    const queue = makeQueue({ name: 'enrichment' });
    const sent = queue.send('{"hello":"world"}');
    const deliveries = consume(queue);
    await vi.waitFor(() => expect(deliveries).toHaveLength(1));

    const [record] = deliveries[0]!.records;
    expect(record).toMatchObject({
      messageId: sent.id,
      receiptHandle: expect.any(String),
      body: '{"hello":"world"}',
      md5OfBody: sent.md5,
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:enrichment',
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(queue.arn).toBe('arn:aws:sqs:local:000000000000:enrichment');
    expect(record!.receiptHandle).not.toBe('');
  });

  it('delivers a message sent after the consumer is attached', async () => {
    const queue = makeQueue();
    const deliveries = consume(queue);
    queue.send('late');
    await vi.waitFor(() => expect(deliveries.flatMap(bodies)).toEqual(['late']));
  });

  it('delivers in batches of at most batchSize, in order, each message once', async () => {
    const queue = makeQueue();
    const sent = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'];
    for (const body of sent) queue.send(body);
    const deliveries = consume(queue, () => [], 3);
    await queue.whenEmpty();

    expect(deliveries.map((delivery) => delivery.records.length)).toEqual([3, 3, 1]);
    expect(deliveries.flatMap(bodies)).toEqual(sent);
  });
});

describe('failures and redelivery', () => {
  it('redelivers only the reported batchItemFailures, after the visibility timeout, with the receive count incremented', async () => {
    const queue = makeQueue({ visibilityTimeoutSeconds: 0.1 });
    for (const body of ['a', 'b', 'c']) queue.send(body);
    const deliveries = consume(queue, (_, delivery) => (delivery === 1 ? ['b'] : []));
    await vi.waitFor(() => expect(deliveries).toHaveLength(2));

    const [first, second] = deliveries;
    expect(bodies(first)).toEqual(['a', 'b', 'c']);
    expect(bodies(second)).toEqual(['b']);
    expect(receiveCounts(second)).toEqual(['2']);
    expect(second!.records[0]!.messageId).toBe(first!.records[1]!.messageId);
    expect(second!.records[0]!.receiptHandle).not.toBe(first!.records[1]!.receiptHandle);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(95);

    await queue.whenEmpty();
    expect(queue.depth).toBe(0);
  });

  it('redelivers the whole batch when the handler throws', async () => {
    const queue = makeQueue();
    for (const body of ['a', 'b']) queue.send(body);
    const deliveries = consume(queue, (_, delivery) => {
      if (delivery === 1) throw new Error('handler crashed');
      return [];
    });
    await vi.waitFor(() => expect(deliveries).toHaveLength(2));

    expect(bodies(deliveries[1])).toEqual(['a', 'b']);
    expect(receiveCounts(deliveries[1])).toEqual(['2', '2']);
    await queue.whenEmpty();
  });

  it('dead-letters a message after maxReceiveCount receives and stops delivering it', async () => {
    const queue = makeQueue({ maxReceiveCount: 3 });
    const poison = queue.send('poison');
    queue.send('fine');
    const deliveries = consume(queue, () => ['poison']);
    await queue.whenEmpty();

    const poisonDeliveries = deliveries
      .flatMap((delivery) => delivery.records)
      .filter((record) => record.body === 'poison');
    expect(poisonDeliveries.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    expect(queue.deadLetters).toEqual([{ id: poison.id, body: 'poison', receiveCount: 3 }]);
    expect(deliveries.flatMap(bodies).filter((body) => body === 'fine')).toHaveLength(1);
    expect(queue.depth).toBe(0);
  });
});

describe('changeVisibility', () => {
  it('delays the redelivery of a failed message beyond the visibility timeout', async () => {
    const queue = makeQueue({ visibilityTimeoutSeconds: 0.05 });
    queue.send('backoff');
    const changed: boolean[] = [];
    const deliveries = consume(queue, (records, delivery) => {
      if (delivery > 1) return [];
      changed.push(queue.changeVisibility(records[0]!.receiptHandle, 0.3));
      return ['backoff'];
    });
    await vi.waitFor(() => expect(deliveries).toHaveLength(2), { timeout: 2_000 });

    expect(changed).toEqual([true]);
    expect(deliveries[1]!.at - deliveries[0]!.at).toBeGreaterThanOrEqual(295);
  });

  it('can make a failed message visible again at once', async () => {
    const queue = makeQueue({ visibilityTimeoutSeconds: 30 });
    queue.send('retry-now');
    const deliveries = consume(queue, (records, delivery) => {
      if (delivery > 1) return [];
      queue.changeVisibility(records[0]!.receiptHandle, 0);
      return ['retry-now'];
    });
    await vi.waitFor(() => expect(deliveries).toHaveLength(2));
    expect(receiveCounts(deliveries[1])).toEqual(['2']);
  });

  it('returns false for an unknown receipt handle', () => {
    const queue = makeQueue();
    queue.send('x');
    expect(queue.changeVisibility('no-such-handle', 10)).toBe(false);
  });
});

describe('failNextSends', () => {
  it('makes that many sends throw QueueUnavailableError, then sends succeed again', () => {
    const queue = makeQueue();
    queue.failNextSends = 2;

    expect(() => queue.send('one')).toThrow(QueueUnavailableError);
    expect(() => queue.send('two')).toThrow(QueueUnavailableError);
    expect(queue.depth).toBe(0);
    expect(queue.send('three').id).toEqual(expect.any(String));
    expect(queue.depth).toBe(1);
    expect(queue.failNextSends).toBe(0);
  });
});

describe('whenEmpty', () => {
  it('resolves at once on an empty queue', async () => {
    await expect(makeQueue().whenEmpty()).resolves.toBeUndefined();
  });

  it('stays pending while messages wait and resolves once they are all consumed', async () => {
    const queue = makeQueue();
    for (const body of ['a', 'b', 'c']) queue.send(body);
    let resolved = false;
    const empty = queue.whenEmpty().then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);

    const deliveries = consume(queue, () => [], 2);
    await empty;
    expect(deliveries.flatMap(bodies)).toEqual(['a', 'b', 'c']);
    expect(queue.depth).toBe(0);
  });

  it('does not resolve while a failed message is waiting to be redelivered', async () => {
    const queue = makeQueue({ visibilityTimeoutSeconds: 0.1 });
    queue.send('flaky');
    const deliveries = consume(queue, (_, delivery) => (delivery === 1 ? ['flaky'] : []));
    await queue.whenEmpty();
    expect(receiveCounts(deliveries.at(-1))).toEqual(['2']);
  });
});

describe('a FIFO queue', () => {
  it('keeps each group in order, with one batch of a group in flight at a time, across a redelivered batch', async () => {
    const queue = makeQueue({ fifo: true, visibilityTimeoutSeconds: 0.05 });
    for (let i = 0; i < 6; i++)
      for (const group of ['a', 'b', 'c'])
        queue.send(`${group}${i}`, 0, { groupId: group, deduplicationId: `${group}${i}` });
    const inFlight = new Map<string, number>();
    const processed: string[] = [];
    let most = 0;
    let failedOnce = false;
    queue.attachConsumer(
      async (event) => {
        const groups = [...new Set(event.Records.map((record) => record.body[0]!))];
        for (const group of groups) {
          inFlight.set(group, (inFlight.get(group) ?? 0) + 1);
          most = Math.max(most, inFlight.get(group)!);
        }
        // Takes its time, so that other batches start beside it.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const failures: { itemIdentifier: string }[] = [];
        for (const record of event.Records) {
          // b2 fails the first time: b3 and after must not be processed before it (FIFO Lambda stops at a failure).
          if (record.body === 'b2' && !failedOnce) {
            failedOnce = true;
            failures.push({ itemIdentifier: record.messageId });
            continue;
          }
          if (failures.length === 0 || record.body[0] !== 'b') processed.push(record.body);
          else failures.push({ itemIdentifier: record.messageId });
        }
        for (const group of groups) inFlight.set(group, inFlight.get(group)! - 1);
        return { batchItemFailures: failures };
      },
      { batchSize: 2, pollIntervalMs: 5, maxConcurrency: 3 },
    );
    await queue.whenEmpty();
    expect(failedOnce).toBe(true);
    expect(most).toBe(1);
    for (const group of ['a', 'b', 'c'])
      expect(processed.filter((body) => body[0] === group)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `${group}${i}`));
  });

  it('drops a message whose deduplication id was sent within five minutes, and refuses one without a group', () => {
    const queue = makeQueue({ fifo: true });
    const first = queue.send('x', 0, { groupId: 'g', deduplicationId: 'same' });
    expect(queue.send('x again', 0, { groupId: 'g', deduplicationId: 'same' }).id).toBe(first.id);
    expect(queue.depth).toBe(1);
    expect(() => queue.send('no group')).toThrow(/FIFO queue/);
  });
});

describe('the local SQS endpoint', () => {
  it('answers a malformed request with an SQS error and keeps serving', async () => {
    const queue = makeQueue();
    const endpoint = await LocalSqsEndpoint.start([queue]);
    try {
      const call = (body: string) =>
        fetch(endpoint.endpoint, {
          method: 'POST',
          headers: { 'X-Amz-Target': 'AmazonSQS.SendMessage', 'Content-Type': 'application/x-amz-json-1.0' },
          body,
        });
      for (const body of ['{not json', '[1,2]', 'null']) {
        const answer = await call(body);
        expect(answer.status).toBe(400);
        expect(await answer.json()).toMatchObject({ __type: 'com.amazonaws.sqs#InvalidRequest' });
      }
      const sent = await call(JSON.stringify({ QueueUrl: endpoint.queueUrl(queue), MessageBody: 'still here' }));
      expect(sent.status).toBe(200);
    } finally {
      await endpoint.stop();
    }
  });
});
