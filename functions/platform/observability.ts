import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Environment } from './env';
import { METRICS_NAMESPACE, SERVICE_NAME, setting, settings } from './settings';

type LogLevel = ConstructorParameters<typeof Logger>[0] extends infer O
  ? O extends { logLevel?: infer L }
    ? L
    : never
  : never;

/** Headers whose values are credentials: personal access tokens, CloudFront's origin API key, cookies. */
const SECRET_KEYS = new Set(['authorization', 'x-api-key', 'cookie']);

/**
 * Structured JSON logs (Powertools), at LOG_LEVEL (INFO by default; SILENT in tests). Credentials are
 * redacted wherever they appear in a log record (the serialiser sees every key, so this covers the
 * event logged by POWERTOOLS_LOGGER_LOG_EVENT=true, in `headers` and `multiValueHeaders` alike).
 */
export function createLogger(env: Environment): Logger {
  return new Logger({
    serviceName: SERVICE_NAME,
    logLevel: setting(env, settings.logLevel) as LogLevel,
    jsonReplacerFn: redactCredentials,
  });
}

function redactCredentials(key: string, value: unknown): unknown {
  return SECRET_KEYS.has(key.toLowerCase()) ? '[redacted]' : value;
}

/**
 * CloudWatch metrics in embedded metric format (Powertools), namespace `Gleaner`; flushed once per
 * invocation. POWERTOOLS_METRICS_DISABLED=true (the local stack, tests) turns them off. Their own
 * warnings (an invocation that counted nothing) go through `logger`, as structured logs at its level.
 */
export function createMetrics(logger: Logger): Metrics {
  return new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger });
}

/** Records a duration in seconds (an age, a lag). */
export function measureSeconds(metrics: Metrics, name: string, seconds: number): void {
  metrics.addMetric(name, MetricUnit.Seconds, seconds);
}

/** Counts one occurrence of a named event. */
export function count(metrics: Metrics, name: string, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}
