import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { RouteDefinition } from '../functions/platform/routes';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../functions/platform/settings';

/** CloudFront's metrics are here only. */
export const CLOUDFRONT_METRICS_REGION = 'us-east-1';

/** The period of every alarm and dashboard graph. */
export const METRIC_PERIOD = Duration.minutes(5);

/** A metric the handlers emit through Powertools (functions/platform/metric-names.ts). */
export function serviceMetric(metricName: string, statistic: string, label?: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    period: METRIC_PERIOD,
    label,
  });
}

/** An API Gateway metric of one route (per-method metrics are on for every route). No label: an alarm on a labelled metric becomes metric math. */
export function routeMetric(restApi: RestApi, route: RouteDefinition, metricName: string, statistic: string): Metric {
  return new Metric({
    namespace: 'AWS/ApiGateway',
    metricName,
    dimensionsMap: {
      ApiName: restApi.restApiName,
      Stage: restApi.deploymentStage.stageName,
      Resource: route.path,
      Method: route.method,
    },
    statistic,
    period: METRIC_PERIOD,
  });
}

/**
 * A CloudFront metric of the distribution, with Region=Global beside it as CloudFront publishes
 * them (the construct's own metrics omit it). They exist in us-east-1 only: an alarm must be there
 * too, and a graph elsewhere names the region.
 */
export function cdnMetric(distribution: Distribution, metricName: string, statistic: string): Metric {
  return new Metric({
    namespace: 'AWS/CloudFront',
    metricName,
    dimensionsMap: { DistributionId: distribution.distributionId, Region: 'Global' },
    statistic,
    period: METRIC_PERIOD,
  });
}
