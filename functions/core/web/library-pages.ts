/**
 * The signed-in pages of a workspace: Library, Note, Tags, Feeds and Settings › API tokens. Pure
 * rendering through `renderPage` (no script: every action is a form that posts and redirects back);
 * every value from outside goes through `escapeHtml`, and only http(s) URLs reach an href or src.
 */

import type { readerHtml } from '../article/sanitize';
import { feedShowsNote, feedTagsText } from '../feed/settings';
import { titleKey, wikiLinkPieces } from '../links/links';
import { TRASH_RETENTION_DAYS } from '../model';
import type {
  ArticleResource,
  CreatedTokenResource,
  FeedResource,
  NoteResource,
  NoteSummaryResource,
  TagListResource,
  TokenResource,
  TrashPageResource,
} from '../owner/api';
import { escapeHtml } from '../text/escape';
import {
  copyField,
  csrfField,
  type NavItem,
  postButton,
  renderPage,
  type SignedIn,
  settingsNavigation,
} from './layout';
import { notePath, webPaths } from './paths';

export interface PageContext {
  readonly signedIn: SignedIn;
  readonly notice?: string | null;
  readonly error?: string | null;
  /** Scripts of the web assets the page loads (a feature's enhancement, e.g. the search box's). */
  readonly scripts?: readonly string[];
}

/** A signed-in page: the shell with the context's navigation, notice and error, and its own scripts. */
export function page(
  context: PageContext,
  title: string,
  current: NavItem | undefined,
  body: string,
  scripts: readonly string[] = [],
): string {
  return renderPage({
    title,
    body,
    current,
    scripts: [...scripts, ...(context.scripts ?? [])],
    signedIn: context.signedIn,
    notice: context.notice,
    error: context.error,
  });
}

/** An http(s) URL as an attribute value, or null for anything else (a `javascript:` URL is never a link). */
export function safeUrl(url: string | null): string | null {
  return url && /^https?:\/\//i.test(url) ? escapeHtml(url) : null;
}

export function when(iso: string | null): string {
  return iso ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 10))}</time>` : '';
}

export function tagLinks(tags: readonly string[]): string {
  if (!tags.length) return '';
  const items = tags
    .map(
      (tag) =>
        `<li><a class="badge" href="${webPaths.library}?tag=${encodeURIComponent(tag)}">#${escapeHtml(tag)}</a></li>`,
    )
    .join('');
  return `<ul class="tags" aria-label="Tags">${items}</ul>`;
}

export function hostOf(url: string | null): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
}

/** The Library's views: the inbox (not archived), the starred notes, the archive, and every note. */
export const LIBRARY_VIEWS = {
  inbox: { label: 'Inbox', empty: 'Nothing to read: your inbox is empty.' },
  starred: { label: 'Starred', empty: 'No starred notes yet: star a note to keep it at hand.' },
  archive: { label: 'Archive', empty: 'Nothing archived yet: archive a note once you have read it.' },
  all: { label: 'All notes', empty: '' },
} as const;
export type LibraryViewName = keyof typeof LIBRARY_VIEWS;

/**
 * Marks what the search box's results as you type stand in for (the Library's notes, the results
 * page's own results): search.js hides it while it shows results, so no list continues below them.
 */
export const SEARCH_REPLACES = 'data-search-replaces';

/** The script of the Library's keyboard, archive and star buttons (web/src/library.ts). */
const LIBRARY_SCRIPT = 'library.js';

export interface LibraryView {
  readonly notes: readonly NoteSummaryResource[];
  readonly view: LibraryViewName;
  readonly tag: string | null;
  /** The link to the next (older) page, or null on the last. */
  readonly olderHref: string | null;
  /** This page's own address, where the Library's form comes back to. */
  readonly here: string;
  /**
   * The search box (core/web/search-pages.ts's form), above the notes, as HTML. Null leaves it out.
   */
  readonly searchBox?: string | null;
}

/** A Library address: a view (the inbox unless named), a tag, a page. */
export function libraryHref(view: LibraryViewName, tag: string | null = null, cursor: string | null = null): string {
  const query = new URLSearchParams({
    ...(view === 'inbox' ? {} : { view }),
    ...(tag ? { tag } : {}),
    ...(cursor ? { cursor } : {}),
  }).toString();
  return `${webPaths.library}${query ? `?${query}` : ''}`;
}

/**
 * A note's archive and star buttons: submit buttons of the form they sit in, which posts to the
 * Library (`apply` names the action and the note), so they work without script; library.js sends
 * them through the per-user API instead and updates the page in place.
 */
function stateButtons(note: Pick<NoteSummaryResource, 'id' | 'title' | 'archived' | 'starred'>): string {
  const button = (action: string, label: string, kind: 'archive' | 'star') =>
    `<button type="submit" class="secondary small" name="apply" value="${action} ${escapeHtml(note.id)}" data-state-action="${kind}" aria-keyshortcuts="${kind === 'archive' ? 'e' : 's'}">${label}</button>`;
  return `<div class="state-actions">${button(note.archived ? 'unarchive' : 'archive', note.archived ? 'Move to inbox' : 'Archive', 'archive')}${button(note.starred ? 'unstar' : 'star', note.starred ? '★ Unstar' : '☆ Star', 'star')}</div>`;
}

/** The attributes library.js reads a note's state from. */
function stateAttributes(note: Pick<NoteSummaryResource, 'id' | 'title' | 'archived' | 'starred'>): string {
  return `data-note-id="${escapeHtml(note.id)}" data-title="${escapeHtml(note.title)}" data-archived="${note.archived}" data-starred="${note.starred}"`;
}

const BULK_ACTIONS = [
  ['archive', 'Archive'],
  ['unarchive', 'Move to inbox'],
  ['star', 'Star'],
  ['unstar', 'Unstar'],
  ['tag', 'Add tags'],
  ['untag', 'Remove tags'],
  ['delete', 'Move to Trash'],
] as const;

export function libraryPage(context: PageContext, view: LibraryView): string {
  const items = view.notes
    .map((note) => {
      const icon = safeUrl(note.icon);
      const source = safeUrl(note.url);
      const select = `select-${escapeHtml(note.id)}`;
      return `<li class="note-item" tabindex="-1" ${stateAttributes(note)}>
<input type="checkbox" class="select" id="${select}" name="ids" value="${escapeHtml(note.id)}" aria-label="Select ${escapeHtml(note.title)}">
${icon ? `<img class="favicon" src="${icon}" alt="" width="16" height="16">` : ''}<a class="note-title" href="${notePath(note.id)}">${escapeHtml(note.title)}</a>
<p class="muted">${source ? `${escapeHtml(hostOf(note.url))} · ` : ''}${when(note.updated ?? note.created)}</p>
${tagLinks(note.tags)}
${stateButtons(note)}
</li>`;
    })
    .join('\n');
  const filter = view.tag
    ? `<p>Notes tagged <strong>#${escapeHtml(view.tag)}</strong> · <a href="${escapeHtml(libraryHref(view.view))}">Show all notes</a></p>`
    : '';
  const empty = view.tag
    ? '<p>No note here carries this tag.</p>'
    : view.view === 'inbox' || view.view === 'all'
      ? `<p>${view.view === 'inbox' ? `${LIBRARY_VIEWS.inbox.empty} ` : ''}Nothing saved yet? Create an API token in <a href="/settings/tokens">Settings › API tokens</a>, put it in the browser extension, and save a page; or share a page to Gleaner from your phone.</p>`
      : `<p>${LIBRARY_VIEWS[view.view].empty}</p>`;
  const options = BULK_ACTIONS.map(([value, label]) => `<option value="${value}">${label}</option>`).join('');
  const list = view.notes.length
    ? `<form method="post" action="${webPaths.library}" class="library-form" data-library-form data-view="${view.view}">
${csrfField(context.signedIn.csrfToken)}
<input type="hidden" name="return" value="${escapeHtml(view.here)}">
<fieldset class="bulk">
<legend>With the selected notes</legend>
<label for="bulk-action">Action</label>
<select id="bulk-action" name="action">${options}</select>
<label for="bulk-tags">Tags to add or remove</label>
<input id="bulk-tags" name="tags" aria-describedby="bulk-tags-hint">
<p id="bulk-tags-hint" class="hint muted">Separated by commas or spaces.</p>
<button type="submit">Apply to selected</button>
</fieldset>
<ul class="list notes">
${items}
</ul>
</form>`
    : empty;
  return page(
    context,
    `Library: ${LIBRARY_VIEWS[view.view].label}`,
    'library',
    `<h1>Library</h1>
${view.searchBox ? `<div class="search-slot">${view.searchBox}</div>\n` : ''}<div ${SEARCH_REPLACES}>
${viewTabs(view.view, view.tag)}
<form method="get" action="${webPaths.library}" class="inline-form tag-filter" role="search" aria-label="Filter by tag">
${view.view === 'inbox' ? '' : `<input type="hidden" name="view" value="${view.view}">`}<label for="tag-filter">Filter by tag</label>
<input id="tag-filter" name="tag" value="${escapeHtml(view.tag ?? '')}" autocomplete="off">
<button type="submit" class="secondary">Filter</button>
</form>
${filter}${list}
${view.olderHref ? `<p><a href="${escapeHtml(view.olderHref)}">Older notes</a></p>` : ''}
</div>
<p class="hint muted keys-hint">Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous note, <kbd>e</kbd> archive, <kbd>s</kbd> star, <kbd>x</kbd> select, <kbd>/</kbd> search, <kbd>Esc</kbd> clear the search.</p>
<p id="library-status" class="visually-hidden" aria-live="polite"></p>`,
    [LIBRARY_SCRIPT],
  );
}

/** The Library's views as tabs, and the Trash after them; `current` is marked as the page shown. */
function viewTabs(current: LibraryViewName | 'trash', tag: string | null = null): string {
  const tab = (href: string, label: string, here: boolean) =>
    `<li><a href="${escapeHtml(href)}"${here ? ' aria-current="page"' : ''}>${label}</a></li>`;
  const tabs = (Object.keys(LIBRARY_VIEWS) as LibraryViewName[])
    .map((name) => tab(libraryHref(name, tag), LIBRARY_VIEWS[name].label, name === current))
    .join('');
  return `<nav aria-label="Library views" class="views"><ul>${tabs}${tab(webPaths.trash, 'Trash', current === 'trash')}</ul></nav>`;
}

/**
 * The Trash: deleted notes, most recently deleted first, each with when it goes for good, and its
 * Restore and Delete forever buttons; Empty trash asks to be ticked first.
 */
export function trashPage(context: PageContext, trash: TrashPageResource, olderHref: string | null): string {
  const csrf = context.signedIn.csrfToken;
  const items = trash.notes
    .map((note) => {
      const title = escapeHtml(note.title);
      return `<li class="note-item">
<p class="note-title">${title}</p>
<p class="muted">${note.url ? `${escapeHtml(hostOf(note.url))} · ` : ''}deleted ${when(note.trashed_at)} · deleted for good on ${when(note.purge_at)}</p>
${note.tags.length ? `<p class="muted">${note.tags.map((tag) => `#${escapeHtml(tag)}`).join(' ')}</p>` : ''}
<div class="state-actions">
<button type="submit" class="small" name="apply" value="restore ${escapeHtml(note.id)}" aria-label="Restore ${title}">Restore</button>
<button type="submit" class="secondary small" name="apply" value="delete ${escapeHtml(note.id)}" aria-label="Delete forever ${title}">Delete forever</button>
</div>
</li>`;
    })
    .join('\n');
  const list = trash.notes.length
    ? `<form method="post" action="${webPaths.trash}">
${csrfField(csrf)}
<ul class="list notes">
${items}
</ul>
</form>
<form method="post" action="${webPaths.trash}" class="stack empty-trash">
${csrfField(csrf)}
<label class="check"><input type="checkbox" name="confirm" value="empty" required> Yes, delete every note in the Trash for good</label>
<button type="submit" class="secondary" name="apply" value="empty">Empty trash</button>
</form>`
    : '<p>The Trash is empty.</p>';
  return page(
    context,
    'Trash',
    'library',
    `<h1>Trash</h1>
${viewTabs('trash')}
<p>Deleted notes wait here for ${trash.retention_days} days, out of your lists, search, feeds, links and review, then are deleted for good with their highlights and kept page. Restore puts a note back as it was; saving its page again restores it too.</p>
${list}
${olderHref ? `<p><a href="${escapeHtml(olderHref)}">Older deletions</a></p>` : ''}`,
  );
}

/** The script that turns a selection in the reader into the highlight form's passage (web/src/reader.ts). */
const READER_SCRIPT = 'reader.js';

type HighlightView = NoteResource['highlights'][number];

/**
 * The note's kept page as the reader shows it: its state, the gone notice, the article in a readable
 * column with the note's highlights marked where its text holds them, and the form that adds one
 * (a passage selected in the page fills it in; without script it can be pasted).
 */
function readerSection(
  noteId: string,
  article: ArticleResource,
  csrf: string,
  reader: { readonly html: string; readonly missing: readonly HighlightView[] } | null,
): string {
  const refetch = postButton(`${notePath(noteId)}/refetch`, csrf, 'Fetch again', 'secondary');
  const facts = [
    article.site_name,
    article.byline,
    article.published ? when(article.published) : null,
    article.reading_minutes ? `${article.reading_minutes} min read` : null,
  ].filter((fact): fact is string => Boolean(fact));
  // HTML: the text escaped, the date a <time> element.
  const state =
    article.status === 'pending'
      ? 'The page has not been fetched yet.'
      : article.status === 'failed'
        ? escapeHtml(`The page could not be kept: ${article.reason ?? 'unknown reason'}.`)
        : article.status === 'partial'
          ? escapeHtml(`Kept partly: ${article.reason ?? 'not an article'}.`)
          : `Kept ${article.kept ? when(article.kept) : ''}.`;
  const lang = article.language ? ` lang="${escapeHtml(article.language)}"` : '';
  const dir = article.direction ? ` dir="${article.direction}"` : '';
  const missing = reader?.missing.length
    ? `<p class="muted" id="highlights-missing">${reader.missing.length === 1 ? 'One highlight is' : `${reader.missing.length} highlights are`} not in this copy of the page: see <a href="#highlights">Highlights</a>.</p>`
    : '';
  return `<section aria-labelledby="reader-heading" class="reader-section">
<h2 id="reader-heading">The page</h2>
<p class="muted" id="article-state" data-status="${article.status}">${state}${facts.length ? ` ${escapeHtml(facts.join(' · '))}` : ''}</p>
${article.notice ? `<p class="notice" role="status">${escapeHtml(article.notice)}</p>` : ''}
${reader ? `<article class="reader"${lang}${dir}>\n${reader.html}\n</article>\n${missing}\n${highlightForm(noteId, csrf)}` : ''}
${refetch}
</section>`;
}

/** Adds a highlight: the passage (filled in from a selection in the reader, or pasted), a comment. */
function highlightForm(noteId: string, csrf: string): string {
  return `<form method="post" action="${notePath(noteId)}/highlights" class="stack highlight-form" id="highlight-form">
${csrfField(csrf)}
<label for="highlight-quote">Passage to highlight</label>
<textarea id="highlight-quote" name="quote" rows="3" required maxlength="20000" aria-describedby="highlight-quote-hint"></textarea>
<p id="highlight-quote-hint" class="hint muted">Select a passage in the page above and it appears here, or paste it.</p>
<input type="hidden" name="prefix" value="">
<input type="hidden" name="suffix" value="">
<label for="highlight-comment">Comment (optional)</label>
<input id="highlight-comment" name="comment" maxlength="5000" aria-describedby="highlight-comment-hint">
<p id="highlight-comment-hint" class="hint muted">#hashtags in it become tags of the note.</p>
<button type="submit">Save highlight</button>
</form>
<div class="selection-bar" id="selection-bar" role="group" aria-label="The selected passage" hidden>
<button type="submit" form="highlight-form">Highlight</button>
<button type="button" class="secondary" data-add-comment>Add a comment</button>
</div>`;
}

/** One highlight in the note's list: its quote and comment, where it is in the page, and its edit and delete forms. */
function highlightItem(noteId: string, highlight: HighlightView, csrf: string, inPage: boolean | null): string {
  const path = `${notePath(noteId)}/highlights/${highlight.id}`;
  const where =
    inPage === null
      ? ''
      : inPage
        ? ` · <a href="#hl-${highlight.id}">Show in the page</a>`
        : ' · <span class="badge">not in the kept page</span>';
  return `<li id="highlight-${highlight.id}">
<blockquote>${escapeHtml(highlight.quote)}</blockquote>
${highlight.comment ? `<p>${escapeHtml(highlight.comment)}</p>` : ''}<p class="muted">Saved ${when(highlight.saved)}${where}</p>
<details class="highlight-actions">
<summary>Edit or delete</summary>
<form method="post" action="${path}" class="stack">
${csrfField(csrf)}
<label for="comment-${highlight.id}">Comment on this highlight</label>
<textarea id="comment-${highlight.id}" name="comment" rows="2" maxlength="5000">${escapeHtml(highlight.comment ?? '')}</textarea>
<button type="submit">Save comment</button>
</form>
${postButton(`${path}/delete`, csrf, 'Delete highlight', 'secondary')}
</details>
</li>`;
}

/** The reader's renderer (core/article/sanitize.ts), which a handler loads on first use: only a note with a kept page needs it. */
export type ReaderHtml = typeof readerHtml;

/** A note's page; `article` is its kept page, shown with `renderReader` when it has HTML. */
export function notePage(
  context: PageContext,
  note: NoteResource,
  related = '',
  article: ArticleResource | null = null,
  renderReader: ReaderHtml | null = null,
  feeds: readonly FeedResource[] = [],
): string {
  const source = safeUrl(note.url);
  const csrf = context.signedIn.csrfToken;
  const marked =
    article?.html != null && renderReader
      ? renderReader(
          article.html,
          note.highlights.map((highlight) => ({
            id: highlight.id,
            selector: {
              exact: highlight.quote,
              prefix: highlight.selector?.prefix,
              suffix: highlight.selector?.suffix,
            },
          })),
        )
      : null;
  const reader = marked && {
    html: marked.html,
    missing: note.highlights.filter((highlight) => !marked.found.has(highlight.id)),
  };
  const highlights = note.highlights
    .map((highlight) => highlightItem(note.id, highlight, csrf, marked ? marked.found.has(highlight.id) : null))
    .join('\n');
  return page(
    context,
    note.title,
    'library',
    `<h1>${escapeHtml(note.title)}</h1>
<form method="post" action="${webPaths.library}" class="note-state" ${stateAttributes(note)}>
${csrfField(csrf)}
<input type="hidden" name="return" value="${notePath(note.id)}">
<p class="muted" data-state-text>${note.archived ? 'Archived' : 'In the inbox'}${note.starred ? ' · starred' : ''}</p>
${stateButtons(note)}
</form>
<p id="library-status" class="visually-hidden" aria-live="polite"></p>
${source ? `<p><a href="${source}" rel="noopener noreferrer">${escapeHtml(note.url!)}</a></p>` : ''}
<p class="muted">Saved ${when(note.created)}${note.updated ? ` · changed ${when(note.updated)}` : ''}</p>
${note.description ? `<p>${escapeHtml(note.description)}</p>` : ''}
${note.comment ? `<p class="note-comment"><strong>Your comment:</strong> ${linkedComment(note)}</p>` : ''}
${tagLinks(note.tags)}
${article ? readerSection(note.id, article, csrf, reader) : ''}
<section aria-labelledby="highlights">
<h2 id="highlights">Highlights</h2>
${note.highlights.length ? `<ul class="list highlights">\n${highlights}\n</ul>` : '<p class="muted">No highlights yet.</p>'}
</section>
${connections(note)}
${related}
${noteFeeds(note, feeds, csrf)}
<section aria-labelledby="edit">
<h2 id="edit">Edit</h2>
<form method="post" action="${notePath(note.id)}" class="stack">
${csrfField(csrf)}
<label for="title">Title</label>
<input id="title" name="title" required maxlength="1000" value="${escapeHtml(note.title)}">
<label for="comment">Comment</label>
<textarea id="comment" name="comment" rows="4" maxlength="5000" aria-describedby="comment-hint">${escapeHtml(note.comment ?? '')}</textarea>
<p id="comment-hint" class="hint muted">Link another note with [[its title]], or paste the address of a page you saved.</p>
<label for="tags">Tags</label>
<input id="tags" name="tags" value="${escapeHtml(note.tags.join(', '))}" aria-describedby="tags-hint">
<p id="tags-hint" class="hint muted">Separated by commas or spaces.</p>
<button type="submit">Save changes</button>
</form>
</section>
<section aria-labelledby="delete">
<h2 id="delete">Delete</h2>
<p>Moves the note, with its highlights, to the <a href="${webPaths.trash}">Trash</a>: you can restore it from there for ${TRASH_RETENTION_DAYS} days, then it is deleted for good.</p>
${postButton(`${notePath(note.id)}/delete`, csrf, 'Move to Trash', 'secondary')}
</section>
<p><a href="${webPaths.library}">Back to the Library</a></p>`,
    reader ? [LIBRARY_SCRIPT, READER_SCRIPT] : [LIBRARY_SCRIPT],
  );
}

/**
 * The owner's feeds as the note sees them: those that show it (feedShowsNote), and for each other a
 * button that puts it in (the tags addNoteToFeed gives it, as the API and MCP do).
 */
function noteFeeds(note: NoteResource, feeds: readonly FeedResource[], csrf: string): string {
  if (!feeds.length) return '';
  const items = feeds
    .map((feed) =>
      feedShowsNote(feed, note.tags)
        ? `<li>${escapeHtml(feed.title)} <span class="muted">shows this note</span></li>`
        : `<li>${escapeHtml(feed.title)} <span class="muted">notes tagged ${escapeHtml(feedTagsText(feed))}</span>
${postButton(`${notePath(note.id)}/feeds`, csrf, `Add to ${feed.title}`, 'secondary', { feed_id: feed.id })}</li>`,
    )
    .join('\n');
  return `<section aria-labelledby="note-feeds"><h2 id="note-feeds">Feeds</h2>
<ul class="list note-feeds">
${items}
</ul>
</section>`;
}

/**
 * The note's own comment with its `[[…]]` links as links to the notes they name (a link still waiting
 * for its note stays as written, marked so); everything else escaped.
 */
function linkedComment(note: NoteResource): string {
  const targets = new Map(
    note.links.flatMap((link) => (link.kind === 'title' && link.note ? [[titleKey(link.target), link.note]] : [])),
  );
  return wikiLinkPieces(note.comment ?? '')
    .map((piece) => {
      if (!('key' in piece)) return escapeHtml(piece.text);
      const target = piece.key === null ? undefined : targets.get(piece.key);
      return target
        ? `<a href="${notePath(target.id)}">${escapeHtml(piece.text)}</a>`
        : `<span class="link-waiting" title="No note of that title yet">[[${escapeHtml(piece.text)}]]</span>`;
    })
    .join('');
}

/**
 * The links the note makes (each to its note, or waiting for one to be saved) and the notes that link
 * to it, each with the sentence the link stands in.
 */
function connections(note: NoteResource): string {
  const sentence = (context: string) => (context ? `<p class="muted">${escapeHtml(context)}</p>` : '');
  const linked = (target: { id: string; title: string }) =>
    `<a href="${notePath(target.id)}">${escapeHtml(target.title)}</a>`;
  const outgoing = note.links
    .map(
      (link) => `<li>
<p>${
        link.note
          ? linked(link.note)
          : `${escapeHtml(link.kind === 'title' ? `[[${link.target}]]` : link.target)} <span class="badge">waiting</span> <span class="muted">for ${link.kind === 'title' ? 'a note of that title' : 'that page to be saved'}</span>`
      }</p>
${sentence(link.context)}</li>`,
    )
    .join('\n');
  const incoming = note.backlinks
    .map((backlink) => `<li>\n<p>${linked(backlink.note)}</p>\n${sentence(backlink.context)}</li>`)
    .join('\n');
  return `<section aria-labelledby="links">
<h2 id="links">Links</h2>
${outgoing ? `<ul class="list links">\n${outgoing}\n</ul>` : '<p class="muted">This note links to no other note.</p>'}
</section>
<section aria-labelledby="backlinks">
<h2 id="backlinks">Backlinks</h2>
${incoming ? `<ul class="list backlinks">\n${incoming}\n</ul>` : '<p class="muted">No note links here yet.</p>'}
</section>`;
}

/**
 * A rename or merge cut short goes on by itself (the sweeper takes it up within minutes); listed until
 * it is done, with a button that carries it on at once (the same rename or merge again).
 */
function unfinishedRetags(csrf: string, jobs: TagListResource['unfinished']): string {
  if (!jobs?.length) return '';
  const items = jobs
    .map((job) => {
      const what = `${job.mode === 'rename' ? 'Renaming' : 'Merging'} #${job.tag} into #${job.into}`;
      const fields: Record<string, string> = { tag: job.tag, [job.mode === 'rename' ? 'name' : 'into']: job.into };
      return `<li>${escapeHtml(what)} <span class="muted">${job.notes_changed} ${job.notes_changed === 1 ? 'note' : 'notes'} so far, started ${when(job.started)}</span>
${postButton(job.mode === 'rename' ? webPaths.tagRename : webPaths.tagMerge, csrf, `Continue ${what.toLowerCase()} now`, 'secondary', fields)}</li>`;
    })
    .join('\n');
  return `<section aria-labelledby="unfinished"><h2 id="unfinished">Under way</h2>
<p class="muted">Their notes carry either tag until they are done; they go on by themselves within a few minutes.</p>
<ul class="list unfinished-retags">
${items}
</ul>
</section>`;
}

export function tagsPage(context: PageContext, { tags, unfinished }: TagListResource): string {
  const csrf = context.signedIn.csrfToken;
  const rows = tags
    .map(
      (tag) => `<li>
<a href="${webPaths.library}?tag=${encodeURIComponent(tag.name)}">#${escapeHtml(tag.name)}</a> <span class="muted">${tag.count} ${tag.count === 1 ? 'note' : 'notes'}</span>
</li>`,
    )
    .join('\n');
  const options = tags
    .map((tag) => `<option value="${escapeHtml(tag.name)}">${escapeHtml(tag.name)}</option>`)
    .join('');
  const change = (
    action: string,
    label: string,
    field: string,
    fieldLabel: string,
    help: string,
  ) => `<form method="post" action="${action}" class="stack">
${csrfField(csrf)}
<label for="${field}-from">Tag</label>
<select id="${field}-from" name="tag" required>${options}</select>
<label for="${field}">${fieldLabel}</label>
<input id="${field}" name="${field}" required maxlength="64" aria-describedby="${field}-hint">
<p id="${field}-hint" class="hint muted">${help}</p>
<button type="submit">${label}</button>
</form>`;
  return page(
    context,
    'Tags',
    'tags',
    `<h1>Tags</h1>
${unfinishedRetags(csrf, unfinished)}
${tags.length ? `<ul class="list tags-list">\n${rows}\n</ul>` : '<p>No tags yet: hashtags in a save’s comment become tags, and you can tag a note on its page.</p>'}
${
  tags.length
    ? `<section aria-labelledby="rename"><h2 id="rename">Rename a tag</h2>
${change(webPaths.tagRename, 'Rename', 'name', 'New name', 'On every note and feed. A name another tag has is refused: merge instead.')}
</section>
<section aria-labelledby="merge"><h2 id="merge">Merge tags</h2>
${change(webPaths.tagMerge, 'Merge', 'into', 'Into tag', 'Its notes and feeds carry this tag instead.')}
</section>`
    : ''
}`,
  );
}

const SHARING_LABELS = {
  private: 'Private (only you)',
  link: 'Anyone with the link',
  public: 'Public',
} as const;

function sharingSelect(id: string, current: FeedResource['sharing']): string {
  const options = (Object.keys(SHARING_LABELS) as FeedResource['sharing'][])
    .map((value) => `<option value="${value}"${value === current ? ' selected' : ''}>${SHARING_LABELS[value]}</option>`)
    .join('');
  return `<label for="${id}">Visibility</label><select id="${id}" name="sharing">${options}</select>`;
}

export function feedsPage(context: PageContext, feeds: readonly FeedResource[]): string {
  const csrf = context.signedIn.csrfToken;
  const items = feeds
    .map((feed) => {
      const links = [
        ['Page', feed.page_url],
        ['RSS', feed.rss_url],
        ['Atom', feed.atom_url],
        ['JSON Feed', feed.json_feed_url],
      ]
        .map(([label, url]) => `<li><a href="${escapeHtml(url!)}">${label}</a></li>`)
        .join('');
      return `<li>
<h2>${escapeHtml(feed.title)}</h2>
<p class="muted">Notes tagged ${escapeHtml(feedTagsText(feed))} · ${SHARING_LABELS[feed.sharing]}</p>
${feed.sharing === 'private' ? '<p class="muted">Its addresses answer “not found” until you share it.</p>' : ''}<ul class="feed-links" aria-label="Addresses of ${escapeHtml(feed.title)}">${links}</ul>
<form method="post" action="${webPaths.feeds}/${encodeURIComponent(feed.id)}" class="inline-form">
${csrfField(csrf)}${sharingSelect(`sharing-${feed.id}`, feed.sharing)}
<button type="submit" class="secondary">Save visibility</button>
</form>
${postButton(`${webPaths.feeds}/${encodeURIComponent(feed.id)}/delete`, csrf, `Delete ${feed.title}`, 'secondary')}
</li>`;
    })
    .join('\n');
  return page(
    context,
    'Feeds',
    'feeds',
    `<h1>Feeds</h1>
<p>A feed lists your notes with some tags, newest first, as a web page, RSS, Atom and JSON Feed.</p>
${feeds.length ? `<ul class="list feeds">\n${items}\n</ul>` : '<p class="muted">No feeds yet.</p>'}
<section aria-labelledby="new-feed">
<h2 id="new-feed">New feed</h2>
<form method="post" action="${webPaths.feeds}" class="stack">
${csrfField(csrf)}
<label for="feed-title">Title</label>
<input id="feed-title" name="title" required maxlength="200">
<label for="feed-tags">Tags</label>
<input id="feed-tags" name="tags" required aria-describedby="feed-tags-hint">
<p id="feed-tags-hint" class="hint muted">Notes with any of these tags (commas or spaces between them).</p>
${sharingSelect('feed-sharing', 'private')}
<button type="submit">Create feed</button>
</form>
</section>`,
  );
}

const EXPIRY_CHOICES: readonly [string, string][] = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', 'A year'],
  ['', 'Never'],
];

export function apiTokensPage(
  context: PageContext,
  tokens: readonly TokenResource[],
  created: CreatedTokenResource | null = null,
): string {
  const csrf = context.signedIn.csrfToken;
  const rows = tokens
    .map(
      (token) => `<li>
<strong>${escapeHtml(token.label ?? 'Unlabelled')}</strong>${token.revoked ? ' <span class="badge">Revoked</span>' : ''}
<p class="muted">Created ${when(token.created)} · ${token.expires ? `expires ${when(token.expires)}` : 'never expires'} · ${token.last_used ? `last used ${when(token.last_used)}${token.last_used_by ? ` by ${escapeHtml(token.last_used_by)}` : ''}` : 'never used'}</p>
${token.revoked ? '' : postButton(`${webPaths.apiTokens}/${encodeURIComponent(token.id)}/revoke`, csrf, `Revoke ${token.label ?? 'token'}`, 'secondary')}
</li>`,
    )
    .join('\n');
  const secret = created
    ? `<section aria-labelledby="new-secret" class="notice">
<h2 id="new-secret">Your new token “${escapeHtml(created.label ?? '')}”</h2>
<p>Copy it now: it is shown only this once. Paste it into the browser extension’s options.</p>
${copyField('secret', 'Token', created.token)}
</section>`
    : '';
  const expiry = EXPIRY_CHOICES.map(
    ([value, label]) => `<option value="${value}"${value === '90' ? ' selected' : ''}>${label}</option>`,
  ).join('');
  return page(
    context,
    'API tokens',
    'settings',
    `<h1>Settings › API tokens</h1>
${settingsNavigation('tokens')}
<p>An API token lets the browser extension (or a script) save pages to your Library. It can do nothing else.</p>
${secret}
<section aria-labelledby="create">
<h2 id="create">Create a token</h2>
<form method="post" action="${webPaths.apiTokens}" class="stack">
${csrfField(csrf)}
<label for="label">Label</label>
<input id="label" name="label" required maxlength="100" placeholder="Laptop browser">
<label for="expires">Expires</label>
<select id="expires" name="expires_in_days">${expiry}</select>
<button type="submit">Create token</button>
</form>
</section>
<section aria-labelledby="tokens">
<h2 id="tokens">Your tokens</h2>
${tokens.length ? `<ul class="list tokens">\n${rows}\n</ul>` : '<p class="muted">No tokens yet.</p>'}
</section>`,
    created ? ['copy.js'] : [],
  );
}

/** A page that is another user's, or none: the same answer. */
export function notFoundPage(context: PageContext): string {
  return page(
    context,
    'Not found',
    undefined,
    `<h1>Not found</h1><p><a href="${webPaths.library}">Back to the Library</a></p>`,
  );
}
