import { type CfnResource, Duration, type Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Stats,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { metricNames } from '../functions/platform/metric-names';
import type { RouteDefinition } from '../functions/platform/routes';
import type { Api } from './api';
import { AppFunction } from './app-function';
import type { Cdn } from './cdn';
import type { DataTable } from './data';
import { CLOUDFRONT_METRICS_REGION, cdnMetric, METRIC_PERIOD as PERIOD, routeMetric, serviceMetric } from './metrics';
import type { WorkQueues } from './work-queue';

export interface OperationsDashboardProps {
  readonly stage: string;
  /** The stack whose functions and alarms (its nested stacks' too) the dashboard shows, and which names it. */
  readonly root: Stack;
  readonly routes: readonly RouteDefinition[];
  readonly api: Api;
  readonly cdn: Cdn;
  readonly data: DataTable;
  readonly queues: WorkQueues;
  readonly failedRunQueues: readonly Queue[];
}

const WIDTH = 12;

/**
 * One CloudWatch dashboard for on-call: saves (created, appended, refused by reason), feed reads and
 * CloudFront's cache hits, enrichment outcomes, latency per route, throttles, dead-letter depth, and
 * every alarm's state. Built after the alarms, whose states it shows.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(
    scope: Construct,
    id: string,
    { stage, root, routes, api, cdn, data, queues, failedRunQueues }: OperationsDashboardProps,
  ) {
    super(scope, id);
    const restApi = api.restApi;
    // A dashboard may show another region's metrics: CloudFront's are in us-east-1.
    const cdnRequests = cdnMetric(cdn.distribution, 'Requests', Stats.SUM).with({
      label: 'CloudFront requests',
      region: CLOUDFRONT_METRICS_REGION,
    });
    const cachedRoutes = routes.filter((route) => route.cdn);
    const originRequests = Object.fromEntries(
      cachedRoutes.map((route, index) => [
        `origin${index}`,
        routeMetric(restApi, route, 'Count', Stats.SUM).with({ label: `${route.method} ${route.path}` }),
      ]),
    );

    const functions = root.node
      .findAll()
      .filter((construct): construct is AppFunction => construct instanceof AppFunction);
    // A conditional alarm (CloudFront's, in us-east-1 only) may not exist for the widget to name.
    const alarms = root.node
      .findAll()
      .filter(
        (construct): construct is Alarm =>
          construct instanceof Alarm && !(construct.node.defaultChild as CfnResource).cfnOptions.condition,
      );

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${root.stackName}-operations`,
      defaultInterval: Duration.hours(6),
      widgets: [
        [new AlarmStatusWidget({ title: `Gleaner ${stage}: alarms`, alarms, width: 24, height: 4 })],
        [
          graph(
            'Saves',
            sums([
              [metricNames.bookmarkCreated, 'created'],
              [metricNames.noteAppended, 'appended'],
              [metricNames.saveReplayed, 'replayed (Idempotency-Key)'],
            ]),
          ),
          graph(
            'Saves refused, by reason',
            sums([
              [metricNames.saveUnauthorized, '401 token'],
              [metricNames.saveInvalid, '422 invalid'],
              [metricNames.saveRateLimited, '429 rate limited'],
              [metricNames.noteLimitReached, '402 note cap'],
              [metricNames.idempotencyKeyInFlight, '409 key in flight'],
              [metricNames.idempotencyKeyReused, '422 key reused'],
            ]),
          ),
        ],
        [
          graph('Feed reads: CloudFront requests and those reaching the API', [
            cdnRequests,
            ...Object.values(originRequests),
          ]),
          graph('CloudFront cache hit ratio (%, requests not passed to the cached routes)', [
            new MathExpression({
              expression: `IF(requests > 0, 100 * (1 - (${Object.keys(originRequests).join(' + ')}) / requests), 100)`,
              usingMetrics: { requests: cdnRequests, ...originRequests },
              period: PERIOD,
              label: 'hit ratio',
            }),
          ]),
        ],
        [
          graph(
            'Enrichment: messages',
            sums([
              [metricNames.messagesProcessed, 'processed'],
              [metricNames.messagesRetried, 'retried later'],
              [metricNames.messagesFailed, 'failed'],
            ]),
          ),
          graph('Enrichment: outbox sweeps', [
            serviceMetric(metricNames.outboxRepublished, Stats.SUM, 'republished'),
            serviceMetric(metricNames.outboxAbandoned, Stats.SUM, 'abandoned'),
            serviceMetric(metricNames.outboxOldestPending, Stats.MAXIMUM, 'oldest waiting (s)'),
          ]),
        ],
        [
          graph(
            'Latency p99 per route (ms)',
            routes.map((route) =>
              routeMetric(restApi, route, 'Latency', Stats.p(99)).with({ label: `${route.method} ${route.path}` }),
            ),
            24,
          ),
        ],
        [
          graph('Throttles', [
            ...functions.map((fn) =>
              fn.function.metricThrottles({ period: PERIOD, statistic: Stats.SUM, label: `Lambda ${fn.node.id}` }),
            ),
            data.table.metricThrottledRequestsForOperations({ period: PERIOD }),
            restApi.metricClientError({
              period: PERIOD,
              statistic: Stats.SUM,
              label: 'API 4XX (gateway 429s among them)',
            }),
          ]),
          graph('Dead-letter queues (messages)', [
            ...Object.values(queues).map((workQueue) =>
              workQueue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
                period: PERIOD,
                statistic: Stats.MAXIMUM,
                label: `${workQueue.definition.name} dead letters`,
              }),
            ),
            ...failedRunQueues.map((queue) =>
              queue.metricApproximateNumberOfMessagesVisible({
                period: PERIOD,
                statistic: Stats.MAXIMUM,
                label: `${queue.node.id}`,
              }),
            ),
          ]),
        ],
      ],
    });
  }
}

function graph(title: string, metrics: IMetric[], width = WIDTH): GraphWidget {
  return new GraphWidget({ title, left: metrics, width, height: 6 });
}

/** The sums of the service's own counters, each under its label. */
function sums(counters: [metricName: string, label: string][]): IMetric[] {
  return counters.map(([metricName, label]) => serviceMetric(metricName, Stats.SUM, label));
}
