import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, Stats, TreatMissingData, type Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { AppFunction } from './app-function';

/** Receives before a message is parked in the dead-letter queue. */
const maxReceiveCount = 5;

/** Six times the longest worker timeout (30 s), as AWS advises, so a batch in progress is not handed out again. */
const visibilityTimeout = Duration.minutes(3);

/** Background work after a save (page description, favicon), with a dead-letter queue and an alarm on it. */
export class EnrichmentQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const protection = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
    // A dead-lettered message keeps its original enqueue time, so the DLQ must keep messages longer.
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { ...protection, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'Queue', {
      ...protection,
      visibilityTimeout,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
    });
    this.deadLetterAlarm = this.deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: Stats.MAXIMUM })
      .createAlarm(this, 'DeadLetterAlarm', {
        alarmDescription: `Enrichment messages failed ${maxReceiveCount} times and wait in the dead-letter queue.`,
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
  }

  /** Subscribes a worker that reports failed records (Powertools batch), so only those are retried. */
  addWorker(worker: AppFunction): void {
    worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
  }
}
