import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { type Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueDefinition, type QueueName, queues } from '../functions/platform/workers';
import type { GleanerSettings } from './stage-settings';

/** The longest a worker may spend on one batch. */
export const workerTimeout = Duration.seconds(30);

/** Six times the worker timeout, as AWS advises, so a batch in progress is not handed out again. */
const visibilityTimeout = Duration.seconds(6 * workerTimeout.toSeconds());

export type WorkQueues = Readonly<Record<QueueName, WorkQueue>>;

/** One queue per entry of the shared queue definitions, named after it (`Enrichment`, `Favicon`). */
export function createWorkQueues(scope: Construct): WorkQueues {
  const entries = Object.values(queues).map((definition) => {
    const id = definition.name.charAt(0).toUpperCase() + definition.name.slice(1);
    return [definition.name, new WorkQueue(scope, id, definition)] as const;
  });
  return Object.fromEntries(entries) as Record<QueueName, WorkQueue>;
}

/** A queue of background work with a dead-letter queue and an alarm on it. */
export class WorkQueue extends Construct {
  readonly definition: QueueDefinition;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, definition: QueueDefinition) {
    super(scope, id);
    this.definition = definition;
    // A FIFO queue's dead-letter queue must be FIFO too; deduplication is by the id each message carries.
    const protection = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...(definition.fifo ? { fifo: true, contentBasedDeduplication: false } : {}),
    };
    // A dead-lettered message keeps its original enqueue time, so the DLQ must keep messages longer;
    // and it outlives the stack, as its messages are the evidence of what failed.
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      ...protection,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.queue = new Queue(this, 'Queue', {
      ...protection,
      visibilityTimeout,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
    });
    this.deadLetterAlarm = this.deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: Stats.MAXIMUM })
      .createAlarm(this, 'DeadLetterAlarm', {
        alarmDescription: `Messages of the ${definition.name} queue failed ${definition.maxReceiveCount} times and wait in its dead-letter queue. Look first at its worker's log group for their message ids, fix the cause, then redrive them (README, "Operating Gleaner").`,
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
  }

  /** Subscribes a worker that reports failed records (Powertools batch), so only those are retried. */
  addWorker(worker: LambdaFunction, { batchSize, maxConcurrency }: GleanerSettings['workers']): void {
    const timeout = worker.timeout;
    if (!timeout || timeout.toSeconds() > workerTimeout.toSeconds()) {
      throw new Error(
        `Worker ${worker.node.path} must time out within ${workerTimeout.toHumanString()}, the basis of the queue's visibility timeout.`,
      );
    }
    worker.addEventSource(new SqsEventSource(this.queue, { batchSize, maxConcurrency, reportBatchItemFailures: true }));
  }
}
