import { Logger } from '@aws-lambda-powertools/logger';
import type { Environment } from './env';

type LogLevel = ConstructorParameters<typeof Logger>[0] extends infer O ? (O extends { logLevel?: infer L } ? L : never) : never;

/** Structured JSON logs (Powertools), at LOG_LEVEL (INFO by default; SILENT in tests). */
export function createLogger(env: Environment): Logger {
  return new Logger({ serviceName: 'gleaner', logLevel: (env.LOG_LEVEL as LogLevel | undefined) ?? 'INFO' });
}
