import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newFeedRecord } from '../../functions/core/feed/settings';
import { startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
const demoFeedId = randomUUID();

beforeAll(async () => {
  t = await startTestStack({ DEMO_FEED_ID: demoFeedId });
});
afterAll(() => t.stop());

describe('GET /', () => {
  it('answers an HTML landing page whose links (the API description, the demo feed) all work', async () => {
    const { user } = await t.createUser();
    await t.feeds.createFeed(
      newFeedRecord({
        id: demoFeedId,
        userId: user.id,
        settings: { title: 'Demo reading list', tags: ['reading'], sharing: 'public' },
        now: new Date(),
      }),
    );
    const landing = await fetch(`${t.stack.baseUrl}/`);
    expect(landing.status).toBe(200);
    expect(landing.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const html = await landing.text();
    expect(html).toContain('<h1>Gleaner</h1>');
    expect(html).toContain('docs/cli.md');

    const links = [...html.matchAll(/href="([^"]+)"/g)].map(([, href]) => new URL(href!, landing.url).href);
    expect(links).toEqual([`${t.stack.baseUrl}/openapi.json`, `${t.stack.baseUrl}/feeds/${demoFeedId}`]);
    const [openApi, demoFeed] = await Promise.all(links.map((link) => fetch(link)));
    expect([openApi!.status, demoFeed!.status]).toEqual([200, 200]);
    expect(await openApi!.json()).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
    expect(await demoFeed!.text()).toContain('Demo reading list');
  });
});
