/**
 * The public HTML page of a published feed, and the 404 page every unpublished feed shares. Pure: no
 * AWS, no I/O, no client framework: the page reads without JavaScript; its one script only adds the
 * copy-the-RSS-address button.
 *
 * - `renderFeedPage(feed, notes, links): string` — `notes` are already selected (see `selectFeedEntries`)
 * - `renderFeedNotFoundPage(): string`
 *
 * Every piece of user text goes through `escapeHtml`, except note bodies, which `noteHtml` renders
 * through its allow-list; no other user text reaches a URL attribute except the bookmarked http(s)
 * URLs, which `safeHref` checks.
 */

import { createHash } from 'node:crypto';
import { escapeHtml } from '../text/escape';
import { noteHtml } from '../text/note-html';
import { type Feed, type FeedNote, parseInstant, sortNewestFirst } from './feed';

/** The addresses a feed's page links to; all derived from the route table by the handler. */
export interface FeedPageLinks {
  readonly page: string;
  readonly json: string;
  readonly rss: string;
  readonly atom: string;
  readonly jsonFeed: string;
  readonly embedScript: string;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fdfdfc;--muted:#55575e;--accent:#0b57d0;--rule:#d9d9de;--quote:#f1f1f4}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6ea;--bg:#16171b;--muted:#a9abb3;--accent:#8ab4f8;--rule:#3a3b42;--quote:#22232a}}
*{box-sizing:border-box}
body{margin:0;overflow-wrap:anywhere;background:var(--bg);color:var(--fg);font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",sans-serif}
main,header,footer{max-width:42rem;margin:0 auto;padding:1rem}
a{color:var(--accent)}
h1{font-size:1.9rem;line-height:1.2;margin:1.5rem 0 .5rem}
h2{font-size:1.25rem;line-height:1.3;margin:0 0 .25rem}
.muted,.meta{color:var(--muted)}
.meta{font-size:.9rem}
article{border-top:1px solid var(--rule);padding:1.25rem 0}
blockquote{margin:.75rem 0;padding:.5rem 1rem;border-left:4px solid var(--accent);background:var(--quote)}
ul.tags{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem}
ul.tags li{font-size:.85rem;border:1px solid var(--rule);border-radius:1rem;padding:0 .6rem}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.75rem}
.subscribe{border:1px solid var(--rule);border-radius:.5rem;padding:.75rem 1rem;margin:1rem 0}
input,textarea{width:100%;font:inherit;font-size:.9rem;color:var(--fg);background:var(--quote);border:1px solid var(--rule);border-radius:.25rem;padding:.4rem}
button{font:inherit;margin-top:.5rem;padding:.3rem .9rem;border-radius:.25rem;border:1px solid var(--accent);background:var(--accent);color:var(--bg);cursor:pointer}
label{display:block;font-weight:600;margin-top:.75rem}
`;

/** Fills the clipboard from the field the button names; the address stays selectable without it. */
const COPY_SCRIPT = `document.querySelectorAll('button[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){var f=document.getElementById(b.dataset.copy);f.select();(navigator.clipboard?navigator.clipboard.writeText(f.value):Promise.reject()).then(function(){b.textContent='Copied'},function(){document.execCommand('copy');b.textContent='Copied'})})})`;

const sha256Source = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's Content-Security-Policy: its own inline style and its one script (the copy button) by
 * hash, images from anywhere a note links them, and nothing else: no other script, no frame around
 * it, no form, no <base>. With the headers CloudFront adds to every answer, so the local stack sends
 * what AWS does.
 */
export const FEED_PAGE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    `script-src ${sha256Source(COPY_SCRIPT)}`,
    `style-src ${sha256Source(STYLE)}`,
    'img-src https: data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
} as const;

/** Only http(s) addresses become links: a stored `javascript:` or `data:` URL never does. */
function safeHref(url: string | null): string | null {
  if (url === null) return null;
  try {
    const protocol = new URL(url).protocol;
    return protocol === 'http:' || protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function document(options: {
  title: string;
  description: string;
  head?: string;
  body: string;
  script?: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<meta name="description" content="${escapeHtml(options.description)}">
${options.head ?? ''}<style>${STYLE}</style>
</head>
<body>
${options.body}
${options.script ? `<script>${options.script}</script>\n` : ''}</body>
</html>
`;
}

function renderDate(iso: string | null): string {
  const ms = parseInstant(iso);
  if (ms === null) return '';
  const date = new Date(ms);
  const label = date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  return `<time datetime="${escapeHtml(date.toISOString())}">${escapeHtml(label)}</time>`;
}

function renderEntry(note: FeedNote): string {
  const href = safeHref(note.url);
  const title = escapeHtml(note.title.trim() || 'Untitled');
  const tags = note.tags.length
    ? `<ul class="tags" aria-label="Tags">${note.tags.map((tag) => `<li>#${escapeHtml(tag)}</li>`).join('')}</ul>`
    : '';
  return `<article id="entry-${escapeHtml(note.id)}">
<h2>${href ? `<a href="${escapeHtml(href)}">${title}</a>` : title}</h2>
<p class="meta">${renderDate(note.updated ?? note.created)}${href ? ` · <a href="${escapeHtml(href)}">${escapeHtml(hostOf(href))}</a>` : ''}</p>
${noteHtml(note.body)}
${tags}
</article>`;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

/** The `<script>` a site pastes to show this feed's latest entries (see feed-embed-script.ts). */
export function embedSnippet(links: FeedPageLinks): string {
  return `<script src="${escapeHtml(links.embedScript)}" data-feed="${escapeHtml(links.json)}" data-page="${escapeHtml(links.page)}" data-limit="5" async></script>`;
}

/** The feed formats on offer, each with its media type, for autodiscovery and subscribe links. */
function alternates(links: FeedPageLinks): { label: string; type: string; href: string }[] {
  return [
    { label: 'RSS', type: 'application/rss+xml', href: links.rss },
    { label: 'Atom', type: 'application/atom+xml', href: links.atom },
    { label: 'JSON Feed', type: 'application/feed+json', href: links.jsonFeed },
  ];
}

export function renderFeedPage(feed: Feed, notes: readonly FeedNote[], links: FeedPageLinks): string {
  const title = feed.title.trim() || 'Untitled feed';
  const author = feed.author.trim();
  const description = feed.description?.trim() || `Notes${author ? ` by ${author}` : ''} on Gleaner`;
  const formats = alternates(links);
  const head = [
    ...formats.map(
      (format) =>
        `<link rel="alternate" type="${format.type}" title="${escapeHtml(`${title} (${format.label})`)}" href="${escapeHtml(format.href)}">`,
    ),
    `<link rel="canonical" href="${escapeHtml(links.page)}">`,
    `<meta property="og:type" content="website">`,
    `<meta property="og:title" content="${escapeHtml(title)}">`,
    `<meta property="og:description" content="${escapeHtml(description)}">`,
    `<meta property="og:url" content="${escapeHtml(links.page)}">`,
  ].join('\n');
  const entries = sortNewestFirst(notes).map(renderEntry).join('\n');
  const body = `<header>
<h1>${escapeHtml(title)}</h1>
${feed.description?.trim() ? `<p>${escapeHtml(feed.description.trim())}</p>\n` : ''}${author ? `<p class="muted">By ${escapeHtml(author)}</p>\n` : ''}<nav aria-label="Subscribe">
<ul>${formats.map((format) => `<li><a href="${escapeHtml(format.href)}" type="${format.type}">${format.label}</a></li>`).join('')}</ul>
</nav>
</header>
<main>
${entries || '<p class="muted">Nothing here yet.</p>'}
<section class="subscribe" aria-labelledby="follow">
<h2 id="follow">Follow or embed this feed</h2>
<label for="rss-address">RSS address for your feed reader</label>
<input id="rss-address" type="text" readonly value="${escapeHtml(links.rss)}">
<button type="button" data-copy="rss-address" hidden>Copy the RSS address</button>
<label for="embed-snippet">Show the latest entries on your site</label>
<textarea id="embed-snippet" readonly rows="4">${escapeHtml(embedSnippet(links))}</textarea>
</section>
</main>
<footer class="meta">Published with Gleaner.</footer>`;
  return document({ title, description, head, body, script: COPY_SCRIPT });
}

/** One page for every feed that is not published: unknown and private answer byte for byte alike. */
export function renderFeedNotFoundPage(): string {
  return document({
    title: 'Feed not found',
    description: 'This feed does not exist or is not shared.',
    body: `<main>\n<h1>Feed not found</h1>\n<p>This feed does not exist, or its owner does not share it.</p>\n</main>`,
  });
}
