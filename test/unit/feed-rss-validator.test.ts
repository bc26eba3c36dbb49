import { describe, expect, it } from 'vitest';
import type { Feed, FeedNote } from '../../functions/core/feed/feed';
import { renderRss } from '../../functions/core/feed/rss';
import { feedValidatorRulesAvailable, feedValidatorWarnings } from '../support/feed-validator';

/** The W3C feed validator's checks on text (test/support/feed-validator-rules.py) over hostile feeds. */
const HOSTILE_TEXTS = [
  'Tom & Jerry <b>bold</b>',
  '<script>x</script> and a literal &amp; and &lt;i&gt;',
  'DEL\u007F NEL\u0085 C1\u009B NUL\u0000 ESC\u001b[31m BEL\u0007 end',
  'lone \uD800 surrogates \uDFFF and a replacement \uFFFD',
  'plain & simple < 5 > 4 &#x26; &#60;',
  '<img src=x onerror=alert(1)> <a href="javascript:alert(1)">x</a>',
];

function hostileFeed(text: string): string {
  const feed: Feed = {
    id: 'f',
    title: text,
    description: text,
    author: text,
    tags: ['t'],
    match: 'any',
    sharing: 'public',
    updated: null,
  };
  const note: FeedNote = {
    id: '6b1c3c3e-2a8a-4c41-9b8e-4d6a1c1f0a01',
    title: text,
    body: `${text}\n\n> ${text}\n\n#t`,
    tags: ['t', 'tom-&-jerry'],
    url: 'https://example.com/a?b=1&c=<2>',
    updated: '2026-11-20T10:00:00+00:00',
    created: '2026-11-20T10:00:00+00:00',
  };
  return renderRss(feed, [note], {
    selfUrl: 'https://g.example/feeds/f/rss?x=1&y=2',
    siteUrl: 'https://g.example/feeds/f/rss',
    entryLink: () => 'https://g.example/n',
  });
}

describe.skipIf(!feedValidatorRulesAvailable('feed validator rules test'))(
  'RSS as the W3C feed validator checks it',
  () => {
    it.each(HOSTILE_TEXTS)('has no warning for a feed whose every text is %j', (text) => {
      expect(feedValidatorWarnings(hostileFeed(text))).toEqual([]);
    });

    it('the rules do warn where the validator does (so an empty list means something)', () => {
      const flawed = `<?xml version="1.0"?><rss version="2.0"><channel>
<title>Tom &amp;amp; Jerry</title>
<description>&lt;b&gt;bold&lt;/b&gt;</description>
<link>https://x.example/</link>
<item><title>a &lt;i</title><description>&lt;script&gt;x&lt;/script&gt;</description><content:encoded>&lt;p onclick="x"&gt;y&lt;/p&gt;</content:encoded><category>bad\u0085</category></item>
</channel></rss>`;
      expect(feedValidatorWarnings(flawed)).toEqual([
        'channel/title should not contain HTML',
        'channel/description should not contain HTML',
        'item/title: Encode "&" and "<" in plain text using hexadecimal character references.',
        'item/description should not contain script',
        'item/content:encoded should not contain p',
        'item/category contains bad characters',
        'channel should contain a language element',
      ]);
    });
  },
);
