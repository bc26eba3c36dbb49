import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** A silent logger, as the handlers get in tests. */
const silentLogger = () => new Logger({ serviceName: 'test', logLevel: 'SILENT' });

/** Metrics whose own warnings (nothing counted) go to a silent logger instead of the test output. */
export const testMetrics = (logger: Logger = silentLogger()) => new Metrics({ namespace: 'Test', logger });
