import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricNames } from '../../functions/platform/metric-names';
import { routeFunctions, routes } from '../../functions/platform/routes';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/platform/settings';
import { queues, scheduledTasks, streamConsumers, workers } from '../../functions/platform/workers';
import { buildGleanerStack, onlyResource, resourcesOfService, testSettings } from './harness';

type Resource = { Properties: Record<string, any>; Condition?: string };

let built: ReturnType<typeof buildGleanerStack>;
let alarms: [string, Resource][];
let topicId: string;
beforeAll(() => {
  built = buildGleanerStack();
  alarms = Object.entries(resourcesOfService(built, 'AWS::CloudWatch::Alarm')) as [string, Resource][];
  [topicId] = onlyResource(built.template, 'AWS::SNS::Topic');
});

/** The alarms on a metric of `namespace`/`metricName` whose dimensions include `dimensions`. */
function alarmsOn(namespace: string, metricName: string, dimensions: Record<string, unknown> = {}): Resource[] {
  return alarms
    .map(([, alarm]) => alarm)
    .filter((alarm) => {
      const props = alarm.Properties;
      if (props.Namespace !== namespace || props.MetricName !== metricName) return false;
      const actual = Object.fromEntries(
        (props.Dimensions ?? []).map((dimension: { Name: string; Value: unknown }) => [
          dimension.Name,
          JSON.stringify(dimension.Value),
        ]),
      );
      return Object.entries(dimensions).every(([name, value]) => actual[name] === JSON.stringify(value));
    });
}

describe('alarms', () => {
  it('all notify the one topic, and each says what to look at first', () => {
    expect(alarms.length).toBeGreaterThan(30);
    for (const [id, alarm] of alarms) {
      expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.AlarmDescription, id).toMatch(/Look first at /);
    }
  });

  it('mail the address in gleaner.alarmEmail, and nobody without it', () => {
    built.template.resourceCountIs('AWS::SNS::Subscription', 0);
    const { template } = buildGleanerStack(testSettings({ alarmEmail: 'oncall@example.com' }));
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^AlarmsTopic') },
    });
    expect(() => testSettings({ alarmEmail: 'not an address' })).toThrow(/alarmEmail/);
    expect(built.template.toJSON().Outputs.AlarmTopicArn.Value).toEqual({ Ref: topicId });
  });

  it("watch every function's errors, throttles, and p99 duration against 80% of its timeout", () => {
    const functions = Object.entries(built.template.findResources('AWS::Lambda::Function')) as [string, Resource][];
    expect(functions).toHaveLength(
      routeFunctions(routes).length + workers.length + scheduledTasks.length + streamConsumers.length,
    );
    for (const [functionId, fn] of functions) {
      const dimensions = { FunctionName: { Ref: functionId } };
      expect(alarmsOn('AWS/Lambda', 'Errors', dimensions), functionId).toHaveLength(1);
      expect(alarmsOn('AWS/Lambda', 'Throttles', dimensions), functionId).toHaveLength(1);
      const [duration] = alarmsOn('AWS/Lambda', 'Duration', dimensions);
      expect(duration?.Properties, functionId).toMatchObject({
        ExtendedStatistic: 'p99',
        Threshold: fn.Properties.Timeout * 1000 * 0.8,
      });
    }
  });

  it('watch the p99 latency of every route on a function of its own, at the threshold the settings give', () => {
    const ownFunction = routes.filter((route) => routes.filter((other) => other.entry === route.entry).length === 1);
    expect(ownFunction.map((route) => route.id)).toContain('SaveBookmark');
    const latencyOf = (service = built) =>
      ownFunction.map((route) => {
        const found = Object.values(resourcesOfService(service, 'AWS::CloudWatch::Alarm')).filter(
          (alarm) =>
            alarm.Properties.MetricName === 'Latency' &&
            alarm.Properties.Dimensions.some(
              (d: { Name: string; Value: unknown }) => d.Name === 'Resource' && d.Value === route.path,
            ) &&
            alarm.Properties.Dimensions.some(
              (d: { Name: string; Value: unknown }) => d.Name === 'Method' && d.Value === route.method,
            ),
        );
        // A path may take several methods (the per-user API's GET, PATCH and DELETE): one alarm each.
        expect(found, route.id).toHaveLength(1);
        return found[0]!.Properties.Threshold as number;
      });
    expect(new Set(latencyOf())).toEqual(new Set([3000]));
    expect(new Set(latencyOf(buildGleanerStack(testSettings({ alarms: { apiLatencyP99Ms: 1200 } }))))).toEqual(
      new Set([1200]),
    );
  });

  it("watch the API's 5XX rate as a share of its requests", () => {
    const [rate] = alarms
      .map(([, alarm]) => alarm)
      .filter((alarm) =>
        alarm.Properties.Metrics?.some((metric: { Expression?: string }) =>
          metric.Expression?.includes('errors / requests'),
        ),
      );
    expect(rate?.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
    const names = rate!.Properties.Metrics.flatMap(
      (metric: { MetricStat?: { Metric: { MetricName: string } } }) => metric.MetricStat?.Metric.MetricName ?? [],
    );
    expect(names.sort()).toEqual(['5XXError', 'Count']);
  });

  it("watch the table's throttled requests and system errors", () => {
    const tableAlarms = alarms.filter(([id]) => /^AlarmsTable(Throttles|SystemErrors)/.test(id));
    expect(tableAlarms).toHaveLength(2);
    for (const [, alarm] of tableAlarms) {
      const metrics = alarm.Properties.Metrics as {
        MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string }[] } };
      }[];
      expect(new Set(metrics.flatMap((metric) => metric.MetricStat?.Metric.MetricName ?? []))).toEqual(
        new Set([alarm === tableAlarms[0]![1] ? 'ThrottledRequests' : 'SystemErrors']),
      );
      expect(metrics.filter((metric) => metric.MetricStat).length).toBeLessThanOrEqual(10);
    }
  });

  it("watch each work queue's oldest message, its dead-letter queue, and the sweeper's failed runs", () => {
    const sqsAlarms = alarms.filter(([, alarm]) => alarm.Properties.Namespace === 'AWS/SQS');
    expect(
      sqsAlarms
        .filter(([, alarm]) => alarm.Properties.MetricName === 'ApproximateAgeOfOldestMessage')
        .map(([, alarm]) => alarm.Properties.Threshold),
    ).toEqual(Object.keys(queues).map(() => 900));
    // Each dead-letter queue, each scheduled task's failed runs, and the stream consumers' dead letters.
    expect(
      sqsAlarms.filter(([, alarm]) => alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible'),
    ).toHaveLength(Object.keys(queues).length + scheduledTasks.length + 1);
  });

  it("watch the oldest enrichment waiting in the outbox (30 minutes) and failed redelivery delays, from the handlers' own metrics", () => {
    const [outbox] = alarmsOn(METRICS_NAMESPACE, metricNames.outboxOldestPending, { service: SERVICE_NAME });
    expect(outbox?.Properties).toMatchObject({ Threshold: 1800, Statistic: 'Maximum' });
    expect(alarmsOn(METRICS_NAMESPACE, metricNames.redeliveryDelayFailed, { service: SERVICE_NAME })).toHaveLength(1);
  });

  it("watch CloudFront's 5xx rate where its metrics are, in us-east-1 only", () => {
    const [cdn] = alarmsOn('AWS/CloudFront', '5xxErrorRate', { Region: 'Global' });
    expect(cdn?.Properties.Threshold).toBe(1);
    expect(built.monitoring.toJSON().Conditions[cdn!.Condition!]).toEqual({
      'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'],
    });
  });
});
