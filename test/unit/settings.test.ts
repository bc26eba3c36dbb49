import { describe, expect, it } from 'vitest';
import { rateLimitSettings, SettingError, setting, settings } from '../../functions/platform/settings';
import { createHandler as createFeedHandler } from '../../functions/published-feed-json/handler';
import { createHandler as createSaveHandler } from '../../functions/save-bookmark/handler';

/** One settings contract: the names the handlers read, with bad values failing at start (the stack's side: gleaner-stack.test.ts). */

describe('setting', () => {
  it('reads a value, falls back to the default when unset, and names the variable when the value is malformed or missing', () => {
    expect(setting({ FEED_MAX_ENTRIES: '20' }, settings.feedMaxEntries)).toBe(20);
    expect(setting({}, settings.feedMaxEntries)).toBe(50);
    expect(setting({ SAVE_RATE_LIMIT: '10;w=1' }, rateLimitSettings.save)).toEqual({ limit: 10, windowSeconds: 1 });
    expect(() => setting({ FEED_MAX_ENTRIES: 'fifty' }, settings.feedMaxEntries)).toThrow(
      new SettingError('FEED_MAX_ENTRIES="fifty" is not valid: must be a whole number (entries per feed)'),
    );
    expect(() => setting({ TRUST_CDN_HEADERS: 'yes' }, settings.trustCdnHeaders)).toThrow(
      /TRUST_CDN_HEADERS="yes" is not valid: must be true or false/,
    );
    expect(() => setting({}, settings.tableName)).toThrow(/TABLE_NAME is not set/);
  });

  it('makes a handler fail at start on a malformed value instead of serving the default', () => {
    const base = { TABLE_NAME: 't', ENRICHMENT_QUEUE_URL: 'https://sqs.local/q' };
    expect(() => createFeedHandler({ ...base, FEED_MAX_ENTRIES: '-1' })).toThrow(SettingError);
    expect(() => createFeedHandler({ ...base, FEED_RATE_LIMIT: '600 per minute' })).toThrow(/FEED_RATE_LIMIT/);
    expect(() => createSaveHandler({ ...base, CORS_ALLOWED_ORIGINS: ' , ' })).toThrow(/CORS_ALLOWED_ORIGINS/);
  });
});
