import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext, sqsRecord } from './lambda-runtime';

/**
 * An in-process queue with the SQS semantics the workers rely on: at-least-once delivery in batches,
 * a visibility timeout after each receive, partial batch failures (`batchItemFailures`), per-message
 * visibility changes, and a dead-letter queue after `maxReceiveCount` receives. A FIFO queue keeps
 * SQS FIFO's order: messages of one group are delivered in the order sent, never while another of
 * the group is in flight or waiting to be retried (a failed message and the ones after it in its
 * batch come back first), so a consumer of several batches at once has one per group at most; and a
 * deduplication id sent again within five minutes is dropped.
 */

export type SqsConsumer = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface LocalQueueOptions {
  readonly name: string;
  /** Seconds a received message stays invisible before it is delivered again. */
  readonly visibilityTimeoutSeconds?: number;
  /** Receives after which a message moves to the dead-letter queue instead. */
  readonly maxReceiveCount?: number;
  /** SQS FIFO: per-group order, one group's messages in flight at a time, deduplication. */
  readonly fifo?: boolean;
}

/** SQS FIFO's deduplication interval. */
const DEDUPLICATION_MS = 5 * 60_000;

interface StoredMessage {
  readonly id: string;
  readonly body: string;
  readonly sentAt: number;
  receiveCount: number;
  firstReceivedAt: number | null;
  visibleAt: number;
  receiptHandle: string | null;
  /** The message group (FIFO queues). */
  readonly groupId: string | null;
}

export class LocalQueue {
  readonly name: string;
  readonly arn: string;
  readonly deadLetters: { id: string; body: string; receiveCount: number }[] = [];
  private readonly visibilityTimeoutMs: number;
  private readonly maxReceiveCount: number;
  private messages: StoredMessage[] = [];
  private consumer: {
    handler: SqsConsumer;
    batchSize: number;
    timer: NodeJS.Timeout;
    /** Batches in flight, and how many may be. */
    busy: number;
    maxConcurrency: number;
  } | null = null;
  readonly fifo: boolean;
  /** FIFO: the groups with a batch in flight. */
  private readonly groupsInFlight = new Set<string>();
  /** FIFO: deduplication ids sent in the last five minutes, with the message id each gave. */
  private readonly sentIds = new Map<string, { id: string; at: number }>();
  private idleWaiters: (() => void)[] = [];
  /** Batches being delivered now: what `stop` waits for. */
  private readonly deliveries = new Set<Promise<void>>();
  /** Fault injection: the next N sends fail as an unavailable SQS would. */
  failNextSends = 0;

  constructor(options: LocalQueueOptions) {
    this.name = options.name;
    this.arn = `arn:aws:sqs:local:000000000000:${options.name}`;
    this.visibilityTimeoutMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
    this.maxReceiveCount = options.maxReceiveCount ?? 5;
    this.fifo = options.fifo ?? false;
  }

  send(
    body: string,
    delaySeconds = 0,
    fifo?: { groupId: string; deduplicationId: string },
  ): { id: string; md5: string } {
    if (this.failNextSends > 0) {
      this.failNextSends--;
      throw new QueueUnavailableError(`Queue ${this.name} is unavailable (injected failure)`);
    }
    if (this.fifo !== (fifo !== undefined))
      throw new Error(
        this.fifo
          ? `${this.name} is a FIFO queue: a message needs a group and a deduplication id`
          : `${this.name} is not a FIFO queue`,
      );
    const now = Date.now();
    const md5 = createHash('md5').update(body).digest('hex');
    if (fifo) {
      for (const [key, sent] of this.sentIds) if (sent.at <= now - DEDUPLICATION_MS) this.sentIds.delete(key);
      const duplicate = this.sentIds.get(fifo.deduplicationId);
      if (duplicate) return { id: duplicate.id, md5 };
    }
    const message: StoredMessage = {
      id: randomUUID(),
      body,
      sentAt: now,
      receiveCount: 0,
      firstReceivedAt: null,
      visibleAt: now + delaySeconds * 1000,
      receiptHandle: null,
      groupId: fifo?.groupId ?? null,
    };
    if (fifo) this.sentIds.set(fifo.deduplicationId, { id: message.id, at: now });
    this.messages.push(message);
    this.schedule();
    return { id: message.id, md5 };
  }

  /** SQS ChangeMessageVisibility: a consumer's way to back off a failed message. */
  changeVisibility(receiptHandle: string, visibilityTimeoutSeconds: number): boolean {
    const message = this.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (!message) return false;
    message.visibleAt = Date.now() + visibilityTimeoutSeconds * 1000;
    return true;
  }

  /** Messages not yet deleted (visible or in flight). */
  get depth(): number {
    return this.messages.length;
  }

  /** Delivers messages to `handler` like a Lambda event source mapping does. */
  attachConsumer(
    handler: SqsConsumer,
    options: { batchSize?: number; pollIntervalMs?: number; maxConcurrency?: number } = {},
  ): void {
    const timer = setInterval(() => void this.deliver(), options.pollIntervalMs ?? 50);
    timer.unref();
    this.consumer = {
      handler,
      batchSize: options.batchSize ?? 10,
      timer,
      busy: 0,
      maxConcurrency: options.maxConcurrency ?? 1,
    };
  }

  /** Stops delivering; resolves once the batches handed out already are done (their writes with them). */
  async stop(): Promise<void> {
    if (this.consumer) clearInterval(this.consumer.timer);
    this.consumer = null;
    await Promise.all(this.deliveries);
  }

  /** Resolves once every message has been consumed or dead-lettered. */
  whenEmpty(): Promise<void> {
    if (this.messages.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.consumer) setImmediate(() => void this.deliver());
  }

  private deliver(): Promise<void> {
    const delivery = this.deliverBatch();
    this.deliveries.add(delivery);
    const settled = () => void this.deliveries.delete(delivery);
    delivery.then(settled, settled);
    return delivery;
  }

  private async deliverBatch(): Promise<void> {
    const consumer = this.consumer;
    if (!consumer || consumer.busy >= consumer.maxConcurrency) return;
    const batch = this.receive(consumer.batchSize);
    if (batch.length === 0) return;
    consumer.busy++;
    const groups = new Set(batch.flatMap((message) => (message.groupId === null ? [] : [message.groupId])));
    for (const group of groups) this.groupsInFlight.add(group);
    // Another batch may start beside this one (of other groups, in a FIFO queue).
    this.schedule();
    try {
      const failed = await this.invoke(consumer.handler, batch);
      // In a FIFO group, the messages after a failed one are not done either: they come back after it.
      const stopped = new Set<string>();
      const done = new Set(
        batch
          .filter((message) => {
            const group = message.groupId;
            if (group !== null && (stopped.has(group) || failed.has(message.id))) {
              stopped.add(group);
              return false;
            }
            return !failed.has(message.id);
          })
          .map((message) => message.receiptHandle),
      );
      this.messages = this.messages.filter((message) => !done.has(message.receiptHandle));
    } finally {
      for (const group of groups) this.groupsInFlight.delete(group);
      consumer.busy--;
      this.notifyIfEmpty();
      this.schedule();
    }
  }

  /** Takes up to `max` visible messages, dead-lettering those received too often already. */
  private receive(max: number): StoredMessage[] {
    const now = Date.now();
    const batch: StoredMessage[] = [];
    /** FIFO: groups none of whose messages may be taken now (in flight, or their first one not visible yet). */
    const held = new Set(this.groupsInFlight);
    for (const message of [...this.messages]) {
      if (batch.length >= max) break;
      if (message.groupId !== null) {
        if (held.has(message.groupId)) continue;
        if (message.visibleAt > now) {
          held.add(message.groupId);
          continue;
        }
      }
      if (message.visibleAt > now) continue;
      if (message.receiveCount >= this.maxReceiveCount) {
        this.messages.splice(this.messages.indexOf(message), 1);
        this.deadLetters.push({ id: message.id, body: message.body, receiveCount: message.receiveCount });
        continue;
      }
      message.receiveCount++;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + this.visibilityTimeoutMs;
      message.receiptHandle = randomUUID();
      batch.push(message);
    }
    this.notifyIfEmpty();
    return batch;
  }

  /** Ids of the messages to retry: the reported failures, or the whole batch when the handler threw. */
  private async invoke(handler: SqsConsumer, batch: StoredMessage[]): Promise<Set<string>> {
    try {
      const response = await handler(
        { Records: batch.map((message) => this.toRecord(message)) },
        lambdaContext(this.name),
      );
      return new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch {
      return new Set(batch.map((message) => message.id));
    }
  }

  private toRecord(message: StoredMessage): SQSRecord {
    return sqsRecord({
      messageId: message.id,
      receiptHandle: message.receiptHandle!,
      body: message.body,
      receiveCount: message.receiveCount,
      sentAt: message.sentAt,
      firstReceivedAt: message.firstReceivedAt!,
      queueArn: this.arn,
    });
  }

  private notifyIfEmpty(): void {
    if (this.messages.length > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

export class QueueUnavailableError extends Error {}
