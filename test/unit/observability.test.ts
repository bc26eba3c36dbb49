import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeHandler } from '../../functions/get-icon/handler';
import { createLogger, createMetrics } from '../../functions/platform/observability';
import { context, proxyEvent } from '../support/factories';

const TOKEN = 'gln_0123456789abcdefghijABCDEFGHIJ012345';
const API_KEY = 'cloudfront-origin-key-0123456789';

/** What the logger writes (Powertools writes to process.stdout/stderr outside POWERTOOLS_DEV). */
function captureLogs(): () => string {
  let written = '';
  const capture = (chunk: string | Uint8Array) => {
    written += chunk.toString();
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return () => written;
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('logs never hold credentials', () => {
  it('redacts Authorization, X-Api-Key and Cookie in the event POWERTOOLS_LOGGER_LOG_EVENT=true logs', async () => {
    vi.stubEnv('POWERTOOLS_LOGGER_LOG_EVENT', 'true');
    vi.stubEnv('POWERTOOLS_DEV', '');
    const logs = captureLogs();
    const handler = makeHandler({
      icons: { getIcon: async () => null },
      articles: { getImage: async () => null },
      logger: createLogger({ LOG_LEVEL: 'INFO' }),
    });
    const secrets = { Authorization: `Bearer ${TOKEN}`, 'x-api-key': API_KEY, Cookie: `session=${TOKEN}` };
    await handler(
      proxyEvent({
        path: '/icons/logged.png',
        headers: secrets,
        multiValueHeaders: Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, [value]])),
      }),
      context(),
    );
    const written = logs();
    expect(written).toContain('/icons/logged.png');
    expect(written).toContain('[redacted]');
    expect(written).not.toContain(TOKEN);
    expect(written).not.toContain(API_KEY);
  });

  it('redacts them in anything else logged, at any depth', () => {
    vi.stubEnv('POWERTOOLS_DEV', '');
    const logs = captureLogs();
    createLogger({ LOG_LEVEL: 'INFO' }).error('Unhandled error', { request: { headers: { AUTHORIZATION: TOKEN } } });
    expect(logs()).toContain('"AUTHORIZATION":"[redacted]"');
    expect(logs()).not.toContain(TOKEN);
  });
});

describe('createMetrics', () => {
  it('says an invocation counted nothing through the structured logger, not on the console', () => {
    const logger = createLogger({ LOG_LEVEL: 'SILENT' });
    const warned = vi.spyOn(logger, 'warn');
    const consoleWarned = vi.spyOn(console, 'warn');
    try {
      createMetrics(logger).publishStoredMetrics();
      expect(warned).toHaveBeenCalledWith(expect.stringMatching(/^No application metrics to publish/));
      expect(consoleWarned).not.toHaveBeenCalled();
    } finally {
      consoleWarned.mockRestore();
    }
  });
});
