import { describe, expect, it } from 'vitest';
import { type Key, keys } from '../../functions/adapters/dynamo/keys';

/** DynamoDB's limits: a partition key of at most 2048 bytes, a sort key of at most 1024. */
const PARTITION_KEY_MAX_BYTES = 2048;
const SORT_KEY_MAX_BYTES = 1024;

const bytes = (value: string) => Buffer.byteLength(value, 'utf8');
const huge = '日'.repeat(5_000); // 15,000 bytes

describe('keys built from outside input stay within DynamoDB key limits', () => {
  it.each<[string, Key]>([
    ['site of a huge host', keys.site(huge)],
    ['rate-limit window of a huge subject', keys.rateLimitWindow(`feed:${huge}`, 1_700_000_000)],
    ['saved-URL marker of a huge URL', keys.savedUrl('00000000-0000-4000-8000-000000000000', `https://x.test/${huge}`)],
  ])('%s', (_, key) => {
    expect(bytes(key.pk)).toBeLessThanOrEqual(PARTITION_KEY_MAX_BYTES);
    expect(bytes(key.sk)).toBeLessThanOrEqual(SORT_KEY_MAX_BYTES);
  });

  it('keeps short values readable and tells long ones apart', () => {
    expect(keys.site('example.com').pk).toBe('SITE#example.com');
    expect(keys.site(`${huge}a`).pk).not.toBe(keys.site(`${huge}b`).pk);
  });
});
