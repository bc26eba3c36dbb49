import { CfnCondition, CfnOutput, type CfnResource, Fn, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { metricNames } from '../functions/platform/metric-names';
import type { RouteDefinition } from '../functions/platform/routes';
import type { Api } from './api';
import { AppFunction } from './app-function';
import type { Cdn } from './cdn';
import type { DataTable } from './data';
import { CLOUDFRONT_METRICS_REGION, cdnMetric, METRIC_PERIOD as PERIOD, routeMetric, serviceMetric } from './metrics';
import type { GleanerSettings } from './stage-settings';
import type { WorkQueues } from './work-queue';

export interface AlarmsProps {
  readonly settings: GleanerSettings;
  /** The stack whose functions and alarms (its nested stacks' too) are covered: the whole service. */
  readonly root: Stack;
  readonly topic: ITopic;
  readonly routes: readonly RouteDefinition[];
  readonly api: Api;
  readonly cdn: Cdn;
  readonly data: DataTable;
  readonly queues: WorkQueues;
}

/** The operations the stores call, whose throttles and system errors the table alarms sum (an alarm takes ten metrics at most). */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
  Operation.SCAN,
  Operation.BATCH_GET_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/**
 * The SNS topic every alarm notifies. It stays in the service's stack, beside the alarms other
 * constructs raise there (dead-letter queues, failed scheduled runs, search indexing): the monitoring
 * nested stack then only reads from its parent, and nothing in the parent waits on the nested stack.
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, { settings }: { settings: GleanerSettings }) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: `Gleaner ${settings.stage} alarms`, enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications name a resource and a threshold, nothing private; CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer key for this alone is not worth its cost.',
    });
    if (settings.alarmEmail) this.topic.addSubscription(new EmailSubscription(settings.alarmEmail));
    new CfnOutput(Stack.of(this), 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description: 'SNS topic every alarm notifies: subscribe on-call here',
    });
  }
}

/**
 * The alarms on the API, every function, the table, the queues, the outbox and CloudFront. Built
 * last: every alarm of the root stack, those of other constructs too (dead-letter queues, failed
 * scheduled runs), gets the topic as its action. Each description says what to look at first;
 * README "Operating Gleaner" says more.
 */
export class Alarms extends Construct {
  constructor(scope: Construct, id: string, { settings, root, topic, routes, api, cdn, data, queues }: AlarmsProps) {
    super(scope, id);
    const thresholds = settings.alarms;
    this.apiAlarms(api, routes, thresholds);
    for (const fn of root.node
      .findAll()
      .filter((construct): construct is AppFunction => construct instanceof AppFunction)) {
      this.functionAlarms(fn, thresholds);
    }
    this.tableAlarms(data);
    for (const workQueue of Object.values(queues)) {
      const name = workQueue.definition.name;
      this.alarm(
        `${workQueue.node.id}QueueAge`,
        workQueue.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: Stats.MAXIMUM }),
        {
          threshold: thresholds.queueOldestMessageSeconds,
          description: `The oldest message of the ${name} queue waited over ${thresholds.queueOldestMessageSeconds} s: its worker falls behind or keeps retrying. Look first at the worker's errors and throttles and its log group, then at the queue's depth.`,
          periods: 2,
        },
      );
    }
    this.alarm('OutboxOldestPending', serviceMetric(metricNames.outboxOldestPending, Stats.MAXIMUM), {
      threshold: thresholds.outboxOldestPendingSeconds,
      description: `An enrichment has waited in the outbox over ${thresholds.outboxOldestPendingSeconds} s: saves are not being enriched. Look first at the enrichment queue's age and dead-letter queue, then at the page worker's log group and the sweeper's runs.`,
    });
    this.alarm('RedeliveryDelayFailed', serviceMetric(metricNames.redeliveryDelayFailed, Stats.SUM), {
      threshold: 0,
      description:
        "A worker could not delay the redelivery of a message (ChangeMessageVisibility failed), so retries come back without their backoff. Look first at the workers' warnings with the message id in their log groups, then at their SQS permissions.",
    });
    this.cdnAlarm(cdn, thresholds);

    // Every alarm of the service, here and elsewhere, notifies the topic.
    const action = new SnsAction(topic);
    for (const alarm of root.node.findAll().filter((construct): construct is Alarm => construct instanceof Alarm))
      alarm.addAlarmAction(action);
  }

  private apiAlarms(api: Api, routes: readonly RouteDefinition[], thresholds: GleanerSettings['alarms']): void {
    const restApi = api.restApi;
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: restApi.metricServerError({ period: PERIOD, statistic: Stats.SUM }),
        requests: restApi.metricCount({ period: PERIOD, statistic: Stats.SUM }),
      },
      period: PERIOD,
      label: 'API 5XX rate (%)',
    });
    this.alarm('Api5xxRate', errorRate, {
      threshold: thresholds.apiErrorRatePercent,
      description: `Over ${thresholds.apiErrorRatePercent}% of API requests were answered 5XX. Look first at the access log's status and errorType (a gateway error or the function's own 500), then at the failing route's function errors and log group.`,
      periods: 3,
      datapoints: 2,
    });
    // Routes that share a function (the owner's API and pages) are watched through its duration alarm:
    // one latency alarm per route there would pass CloudFormation's 500 resources a stack.
    for (const route of routes.filter((route) => !sharesFunction(route, routes))) {
      this.alarm(`${route.id}LatencyP99`, routeMetric(restApi, route, 'Latency', Stats.p(99)), {
        threshold: thresholds.apiLatencyP99Ms,
        description: `p99 latency of ${route.method} ${route.path} is over ${thresholds.apiLatencyP99Ms} ms. Look first at its function's duration and cold starts (X-Ray traces), then at DynamoDB latency and throttles.`,
        periods: 3,
      });
    }
  }

  private functionAlarms(fn: AppFunction, thresholds: GleanerSettings['alarms']): void {
    const lambda = fn.function;
    const name = fn.node.id;
    this.alarm(`${name}Errors`, lambda.metricErrors({ period: PERIOD, statistic: Stats.SUM }), {
      threshold: 0,
      description: `The ${name} function failed (an uncaught error or a timeout). Look first at its log group for the error and the request id, then at X-Ray for the call that failed.`,
    });
    this.alarm(`${name}Throttles`, lambda.metricThrottles({ period: PERIOD, statistic: Stats.SUM }), {
      threshold: 0,
      description: `Lambda throttled the ${name} function: the account's or the function's concurrency ran out. Look first at the account's concurrent executions, then at what drives this function's load.`,
    });
    const timeoutMs = lambda.timeout!.toMilliseconds();
    const threshold = Math.round((timeoutMs * thresholds.durationPercentOfTimeout) / 100);
    this.alarm(`${name}DurationP99`, lambda.metricDuration({ period: PERIOD, statistic: Stats.p(99) }), {
      threshold,
      description: `p99 duration of the ${name} function is over ${thresholds.durationPercentOfTimeout}% of its ${timeoutMs / 1000} s timeout (${threshold} ms): it is close to timing out. Look first at X-Ray for the slow call (DynamoDB, SQS, a fetched site), then at its log group.`,
      periods: 3,
      datapoints: 2,
    });
  }

  private tableAlarms(data: DataTable): void {
    const table = data.table;
    this.alarm(
      'TableThrottles',
      table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
      {
        threshold: 0,
        description:
          "DynamoDB throttled requests to the table (on demand, so a hot partition or a sudden burst). Look first at the throttled operation in the metric, then at the functions' RateLimited/backoff warnings; CloudWatch Contributor Insights names the hot keys.",
      },
    );
    this.alarm(
      'TableSystemErrors',
      table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
      {
        threshold: 0,
        description:
          'DynamoDB answered requests to the table with 500s. Look first at the AWS Health Dashboard for DynamoDB in this region; the functions retry these, so check their 5XX too.',
      },
    );
  }

  /**
   * CloudFront publishes its metrics in us-east-1 only, and an alarm must be in its metric's region,
   * so this alarm exists only in stacks deployed there (a condition on the region).
   */
  private cdnAlarm(cdn: Cdn, thresholds: GleanerSettings['alarms']): void {
    const inUsEast1 = new CfnCondition(this, 'InUsEast1', {
      expression: Fn.conditionEquals(Stack.of(this).region, CLOUDFRONT_METRICS_REGION),
    });
    const alarm = this.alarm('Cdn5xxRate', cdnMetric(cdn.distribution, '5xxErrorRate', Stats.AVERAGE), {
      threshold: thresholds.cdnErrorRatePercent,
      description: `Over ${thresholds.cdnErrorRatePercent}% of CloudFront answers were 5xx. Look first at the API's 5XX alarm (an origin error), then at CloudFront's standard logs in the access log bucket (x-edge-result-type).`,
      periods: 3,
      datapoints: 2,
    });
    (alarm.node.defaultChild as CfnResource).cfnOptions.condition = inUsEast1;
  }

  private alarm(
    id: string,
    metric: IMetric,
    options: { threshold: number; description: string; periods?: number; datapoints?: number },
  ): Alarm {
    return new Alarm(this, id, {
      metric,
      threshold: options.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.periods ?? 1,
      datapointsToAlarm: options.datapoints ?? options.periods ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
  }
}

/** Whether other routes of the table name the route's handler module, and so run in its function. */
function sharesFunction(route: RouteDefinition, routes: readonly RouteDefinition[]): boolean {
  return routes.some((other) => other !== route && other.entry === route.entry);
}
