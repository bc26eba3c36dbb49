import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Environment } from './env';

type LogLevel = ConstructorParameters<typeof Logger>[0] extends infer O ? (O extends { logLevel?: infer L } ? L : never) : never;

/** Structured JSON logs (Powertools), at LOG_LEVEL (INFO by default; SILENT in tests). */
export function createLogger(env: Environment): Logger {
  return new Logger({ serviceName: 'gleaner', logLevel: (env.LOG_LEVEL as LogLevel | undefined) ?? 'INFO' });
}

/**
 * CloudWatch metrics in embedded metric format (Powertools), namespace `Gleaner`; flushed once per
 * invocation. POWERTOOLS_METRICS_DISABLED=true (the local stack, tests) turns them off.
 */
export function createMetrics(): Metrics {
  return new Metrics({ namespace: 'Gleaner', serviceName: 'gleaner' });
}

/** Counts one occurrence of a named event. */
export function count(metrics: Metrics, name: string, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}
