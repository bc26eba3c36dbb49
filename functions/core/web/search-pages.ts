/**
 * Search in the web app: the Library's search box, the server-rendered results page it submits to
 * (so search works without script), and related notes on a note's page. `search.js` (web/src) adds
 * results as you type and loads related notes in place; without it the box submits and the related
 * notes are a link away. Snippets are `snippetHtml` (matches in `<mark>`, the rest escaped).
 */
import type { RelatedAnswer } from '../search/related';
import type { SearchAnswer } from '../search/search';
import { snippetHtml } from '../search/snippet';
import { escapeHtml } from '../text/escape';
import { renderPage } from './layout';
import { hostOf, type PageContext, SEARCH_REPLACES, tagLinks, when } from './library-pages';
import { notePath, webPaths } from './paths';

/** The script that enhances the search box and the related notes section. */
export const SEARCH_SCRIPT = 'search.js';

/** The search form: a GET to the results page, with a live region the script fills as you type. */
export function searchForm(query = ''): string {
  return `<form method="get" action="${webPaths.search}" class="search-form" role="search" aria-label="Search your notes" data-search-form>
<label for="search-q">Search your notes</label>
<div class="search-row">
<input id="search-q" name="q" type="search" value="${escapeHtml(query)}" maxlength="1000" autocomplete="off" aria-describedby="search-hint" aria-controls="search-live">
<button type="submit">Search</button>
</div>
<p id="search-hint" class="hint muted">Words, <code>"a phrase"</code>, <code>prefix*</code>, <code>#tag</code>, <code>-word</code>, <code>site:example.org</code>, <code>after:2024-01-31</code>, <code>has:highlight</code>, <code>is:unread</code>, <code>is:starred</code>.</p>
</form>
<div id="search-live" class="search-live" aria-live="polite" data-search-live></div>`;
}

export interface SearchPageView {
  readonly query: string;
  /** Null before a search (an empty box). */
  readonly answer: SearchAnswer | null;
  /** Why the query was refused, shown as the page's error. */
  readonly problem?: string | null;
  /** The next page of results, or null. */
  readonly moreHref: string | null;
}

export function searchPage(context: PageContext, view: SearchPageView): string {
  const answer = view.answer;
  // Each row as the Library shows a note: its site, the day it was saved and its tags (search.js builds the same).
  const items = (answer?.results ?? [])
    .map(
      (hit) => `<li class="note-item search-hit">
<a class="note-title" href="${notePath(hit.note_id)}">${escapeHtml(hit.title)}</a>
${hit.snippet.length ? `<p class="snippet">${snippetHtml(hit.snippet)}</p>` : ''}<p class="muted">${hit.url ? `${escapeHtml(hostOf(hit.url))} · ` : ''}${when(hit.created)}</p>
${tagLinks(hit.tags)}
</li>`,
    )
    .join('\n');
  const summary = answer
    ? `<p class="muted search-mode">${answer.results.length ? '' : 'No note matches. '}Searched by ${answer.mode}${answer.reason ? ` (${escapeHtml(answer.reason)})` : ''}.</p>`
    : '';
  return renderPage({
    title: view.query ? `Search: ${view.query}` : 'Search',
    current: 'library',
    signedIn: context.signedIn,
    error: view.problem ?? context.error,
    scripts: [SEARCH_SCRIPT],
    body: `<h1>Search</h1>
${searchForm(view.query)}
<div ${SEARCH_REPLACES}>
${items ? `<ul class="list notes search-results">\n${items}\n</ul>\n` : ''}${summary}
${view.moreHref ? `<p><a href="${escapeHtml(view.moreHref)}">More results</a></p>` : ''}
</div>
<p><a href="${webPaths.library}">Back to the Library</a></p>`,
  });
}

/** The related notes section of a note's page: a link without script, the list with it. */
export function relatedSection(noteId: string): string {
  return `<section aria-labelledby="related" data-related="${escapeHtml(relatedApiPath(noteId))}">
<h2 id="related">Related notes</h2>
<div data-related-list><p><a href="${relatedPagePath(noteId)}">Show related notes</a></p></div>
</section>`;
}

/** The related notes of a note as a page of their own (the section's link, for browsers without script). */
export function relatedPage(context: PageContext, note: { id: string; title: string }, answer: RelatedAnswer): string {
  return renderPage({
    title: `Related to ${note.title}`,
    current: 'library',
    signedIn: context.signedIn,
    body: `<h1>Related to ${escapeHtml(note.title)}</h1>
${relatedList(answer)}
<p><a href="${notePath(note.id)}">Back to the note</a></p>`,
  });
}

function relatedList(answer: RelatedAnswer): string {
  if (!answer.related.length) return '<p class="muted">No related notes yet.</p>';
  const items = answer.related
    .map(
      (note) => `<li class="note-item">
<a class="note-title" href="${notePath(note.note_id)}">${escapeHtml(note.title)}</a>
<p class="muted related-reason">${escapeHtml(note.reason)}</p>
</li>`,
    )
    .join('\n');
  return `<ul class="list notes related-notes">\n${items}\n</ul>`;
}

function relatedPagePath(noteId: string): string {
  return `${notePath(noteId)}/related`;
}

function relatedApiPath(noteId: string): string {
  return `/api/v2/me/notes/${encodeURIComponent(noteId)}/related`;
}
