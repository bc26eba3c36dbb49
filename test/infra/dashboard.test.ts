import { beforeAll, describe, expect, it } from 'vitest';
import { metricNames } from '../../functions/platform/metric-names';
import { routes } from '../../functions/platform/routes';
import { METRICS_NAMESPACE } from '../../functions/platform/settings';
import { queues } from '../../functions/platform/workers';
import { buildGleanerStack, onlyResource, resourcesOfService } from './harness';

type Widget = {
  type: string;
  properties: { title?: string; metrics?: unknown[][]; alarms?: unknown[]; region?: string };
};

let widgets: Widget[];
let alarmCount: number;
beforeAll(() => {
  const built = buildGleanerStack();
  const [, dashboard] = onlyResource(built.monitoring, 'AWS::CloudWatch::Dashboard');
  // The body is a Fn::Join of literal JSON and references; resolving references to their logical id keeps it JSON.
  const body = (dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[])
    .map((part) => (typeof part === 'string' ? part : JSON.stringify(part).replace(/"/g, "'")))
    .join('');
  widgets = JSON.parse(body).widgets;
  alarmCount = Object.values(resourcesOfService(built, 'AWS::CloudWatch::Alarm')).filter(
    (alarm) => !alarm.Condition,
  ).length;
});

const widget = (title: RegExp) => widgets.find((candidate) => title.test(candidate.properties.title ?? ''));
const metricNamesOf = (found: Widget | undefined) =>
  (found?.properties.metrics ?? []).map((metric) =>
    metric
      .filter((part) => typeof part === 'string' && !part.startsWith('.'))
      .slice(0, 2)
      .join('/'),
  );

describe('the operations dashboard', () => {
  it("shows the state of every alarm the stack always has (CloudFront's exists in us-east-1 only)", () => {
    expect(widget(/alarms/)?.properties.alarms).toHaveLength(alarmCount);
  });

  it('shows saves created and appended, and refusals by reason', () => {
    expect(metricNamesOf(widget(/^Saves$/))).toEqual(
      [metricNames.bookmarkCreated, metricNames.noteAppended, metricNames.saveReplayed].map(
        (name) => `${METRICS_NAMESPACE}/${name}`,
      ),
    );
    expect(metricNamesOf(widget(/refused/))).toHaveLength(6);
  });

  it("shows feed reads and CloudFront's cache hit ratio, from us-east-1", () => {
    const reads = widget(/Feed reads/)!;
    expect(JSON.stringify(reads)).toContain('AWS/CloudFront');
    expect(JSON.stringify(reads)).toContain('us-east-1');
    expect(JSON.stringify(widget(/cache hit ratio/))).toMatch(/100 \* \(1 - /);
  });

  it('shows enrichment outcomes, p99 latency of every route, throttles and dead-letter depth', () => {
    expect(metricNamesOf(widget(/Enrichment: messages/))).toHaveLength(3);
    expect(JSON.stringify(widget(/outbox/))).toContain(metricNames.outboxOldestPending);
    expect(widget(/Latency p99 per route/)?.properties.metrics).toHaveLength(routes.length);
    expect(JSON.stringify(widget(/Throttles/))).toContain('ThrottledRequests');
    expect(widget(/Dead-letter/)?.properties.metrics?.length).toBeGreaterThanOrEqual(Object.keys(queues).length);
  });
});
