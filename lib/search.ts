import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TITAN_V2_MODEL_ID } from '../functions/adapters/search/embedders';
import { metricNames } from '../functions/platform/metric-names';
import { settings as handlerSettings } from '../functions/platform/settings';
import type { StreamConsumerDefinition } from '../functions/platform/workers';
import { type AccessTargets, AppFunction } from './app-function';
import type { DataTable } from './data';
import { METRIC_PERIOD, serviceMetric } from './metrics';
import { grantBucket, privateBucket } from './private-bucket';
import type { GleanerSettings } from './stage-settings';

/**
 * What a function that opens the search index runs on: the search engine's layer, with LanceDB's
 * native module for x86-64 Linux (see lib/function-bundle.ts), and memory for its indexes (and the
 * CPU Lambda gives with it).
 */
export const SEARCH_ENGINE_FUNCTION = {
  memoryMb: 1024,
  architecture: Architecture.X86_64,
  searchEngine: true,
} as const;

/**
 * Shards of a new index on AWS: at 100,000 users of 10,000 notes each, about 15 million notes a
 * shard (docs/search.md, "Cost and capacity at 10⁹ notes"); an index keeps its layout until resharded.
 */
const SEARCH_SHARDS_ON_AWS = 64;

/** The indexer's stream reads older than this (the table's writes not yet searchable) page someone. */
const ITERATOR_AGE_ALARM_SECONDS = 60;

/**
 * Where the search index lives on AWS: LanceDB tables in an S3 bucket (encrypted, versioned, never
 * public), with a DynamoDB commit table so concurrent writers (the indexer's shards, a reindex)
 * commit one after the other (LanceDB's `s3+ddb://` store: hash key `base_uri`, range key `version`).
 */
export class SearchIndexStore extends Construct {
  readonly bucket: Bucket;
  readonly commitTable: Table;
  /** What SEARCH_INDEX_URI holds. */
  readonly uri: string;
  /** The embedding model the stage chose: the built-in one (in the bundle) or Bedrock's Titan. */
  readonly embeddings: GleanerSettings['embeddings'];

  constructor(scope: Construct, id: string, props: { settings: GleanerSettings }) {
    super(scope, id);
    this.embeddings = props.settings.embeddings;
    this.bucket = privateBucket(this, props.settings, 'search-index/');
    this.commitTable = new Table(this, 'CommitTable', {
      partitionKey: { name: 'base_uri', type: AttributeType.STRING },
      sortKey: { name: 'version', type: AttributeType.NUMBER },
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.uri = `s3+ddb://${this.bucket.bucketName}/index?ddbTableName=${this.commitTable.tableName}`;
  }

  /** Read (and for writers, write) the index's objects and commit records; tells the function where it is. */
  grant(grantee: AppFunction, write: boolean): void {
    grantBucket(
      grantee,
      this.bucket,
      write,
      'The search index is many objects under one bucket: LanceDB writes new data, index and manifest files by name.',
    );
    if (write) this.commitTable.grantReadWriteData(grantee);
    else this.commitTable.grantReadData(grantee);
    grantee.function.addEnvironment(handlerSettings.searchIndexUri.name, this.uri);
    grantee.function.addEnvironment(handlerSettings.searchShards.name, String(SEARCH_SHARDS_ON_AWS));
  }
}

/**
 * The embedding model for a function that embeds: the built-in one needs nothing (it ships in the
 * function's bundle and is the handlers' default); Bedrock, when the stage chose it, InvokeModel on
 * the one model and the settings that select it.
 */
export function grantEmbeddings(grantee: AppFunction & IGrantable, embeddings: GleanerSettings['embeddings']): void {
  if (embeddings !== 'bedrock') return;
  const stack = Stack.of(grantee);
  grantee.function.addToRolePolicy(
    new PolicyStatement({
      actions: ['bedrock:InvokeModel'],
      resources: [`arn:${stack.partition}:bedrock:${stack.region}::foundation-model/${TITAN_V2_MODEL_ID}`],
    }),
  );
  grantee.function.addEnvironment(handlerSettings.bedrockEmbeddings.name, 'true');
  grantee.function.addEnvironment(handlerSettings.embeddingsModel.name, TITAN_V2_MODEL_ID);
}

export interface SearchIndexingProps {
  readonly consumers: readonly StreamConsumerDefinition[];
  readonly settings: GleanerSettings;
  readonly targets: AccessTargets;
  readonly data: DataTable;
}

/**
 * The table's stream → the indexer Lambda: batches with per-record failures reported, retried, then
 * parked in a dead-letter queue; alarms on failed batches, parked batches and iterator age.
 */
export class SearchIndexing extends Construct {
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, { consumers, settings, targets, data }: SearchIndexingProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue of the stream consumers.',
    });
    for (const consumer of consumers) {
      const fn = new AppFunction(this, consumer.id, {
        entry: consumer.entry,
        description: `${consumer.id}: reads the table's stream`,
        logRetention: settings.logRetentionDays,
        logLevel: settings.logLevel,
        timeout: Duration.minutes(2),
        ...SEARCH_ENGINE_FUNCTION,
      });
      fn.bindAccess(consumer.access, targets);
      fn.function.addEventSource(
        new DynamoEventSource(data.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: consumer.batchSize,
          maxBatchingWindow: Duration.seconds(1),
          retryAttempts: consumer.maxAttempts,
          reportBatchItemFailures: true,
          parallelizationFactor: 1,
          onFailure: new SqsDlq(this.deadLetterQueue),
        }),
      );
      // One writer per shard: the function passes the stream's note changes to a FIFO queue grouped by
      // shard, and writes the index from that queue (Lambda runs one batch of a group at a time).
      if (consumer.queue)
        fn.function.addEventSource(
          new SqsEventSource(targets.queues[consumer.queue.name].queue, {
            batchSize: consumer.queue.batchSize,
            reportBatchItemFailures: true,
          }),
        );
      if (consumer.scheduledEveryMinutes) {
        const interval = Duration.minutes(consumer.scheduledEveryMinutes);
        // A run that could not start before the next one is due is left to that one; its errors
        // show in the function's error alarm.
        new Rule(this, `${consumer.id}Schedule`, {
          description: `Runs ${consumer.id}'s scheduled step every ${consumer.scheduledEveryMinutes} minutes`,
          schedule: Schedule.rate(interval),
          targets: [new LambdaFunction(fn.function, { maxEventAge: interval, retryAttempts: 0 })],
        });
      }
      this.alarm(
        `${consumer.id}IteratorAge`,
        fn.function.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: METRIC_PERIOD }),
        {
          threshold: ITERATOR_AGE_ALARM_SECONDS * 1000,
          description: `The ${consumer.id} function reads table changes over ${ITERATOR_AGE_ALARM_SECONDS} s old: saves are not searchable, nor their links current, yet. Look first at its errors and its IndexBatchFailed and LinkBatchFailed metrics, then at its log group.`,
        },
      );
    }
    this.alarm('IndexBatchFailed', serviceMetric(metricNames.indexBatchFailed, Stats.SUM), {
      threshold: 0,
      description:
        'A batch of table changes failed to index and will be retried. Look first at the SearchIndexer log group for the error (index storage, embeddings).',
    });
    this.alarm('LinkBatchFailed', serviceMetric(metricNames.linkBatchFailed, Stats.SUM), {
      threshold: 0,
      description:
        'The links between notes of a batch of table changes failed to be written and will be retried from the first failed note. Look first at the SearchIndexer log group ("Linking notes failed") for the DynamoDB error.',
    });
    this.alarm(
      'DeadLettersAlarm',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: METRIC_PERIOD,
        statistic: Stats.MAXIMUM,
      }),
      {
        threshold: 0,
        description:
          'Table changes were given up on by the search indexer after its retries: those notes may be stale in search and in their links. Look first at the SearchIndexer log group for the cause; once fixed, run `gleaner reindex` and `gleaner migrate` (its note-links step), then purge the queue.',
      },
    );
  }

  private alarm(
    id: string,
    metric: ReturnType<typeof serviceMetric>,
    options: { threshold: number; description: string },
  ) {
    return new Alarm(this, id, {
      metric,
      threshold: options.threshold,
      alarmDescription: options.description,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
