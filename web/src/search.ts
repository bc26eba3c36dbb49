import { notePath, webPaths } from '../../functions/core/web/paths';

/**
 * The Library's search box with results as you type, and a note's related notes loaded in place.
 * Both pages work without it: the box submits to the results page, and the related notes are a link.
 * Results come from the per-user API with the session cookie (GETs need no CSRF token). Snippets come
 * as HTML with matches in `<mark>`; only their text and marks are taken over, never other markup.
 */

const SEARCH_API = '/api/v2/me/search';
const LIBRARY_PATH = webPaths.library;
/** Waits this long after the last keystroke before asking. */
const DEBOUNCE_MS = 200;
const LIVE_RESULTS = 10;

interface Hit {
  readonly note_id: string;
  readonly title: string;
  readonly url: string | null;
  readonly snippet: string;
  readonly tags: readonly string[];
  readonly created: string;
}

interface RelatedNote {
  readonly note_id: string;
  readonly title: string;
  readonly reason: string;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  properties: Partial<HTMLElementTagNameMap[K]> = {},
  children: (Node | string)[] = [],
): HTMLElementTagNameMap[K] {
  const created = Object.assign(document.createElement(tag), properties);
  created.append(...children);
  return created;
}

/** The snippet's text with its `<mark>`s, and nothing else of its markup. */
function markedSnippet(html: string): DocumentFragment {
  const parsed = new DOMParser().parseFromString(`<p>${html}</p>`, 'text/html').body.firstChild;
  const fragment = document.createDocumentFragment();
  for (const node of Array.from(parsed?.childNodes ?? [])) {
    fragment.append(
      node.nodeName === 'MARK' ? element('mark', { textContent: node.textContent ?? '' }) : (node.textContent ?? ''),
    );
  }
  return fragment;
}

function noteItem(note: { note_id: string; title: string }, details: (Node | string)[], detailClass: string) {
  return element('li', { className: 'note-item' }, [
    element('a', { className: 'note-title', href: notePath(note.note_id), textContent: note.title }),
    element('p', { className: detailClass }, details),
  ]);
}

/** A result row as the Library shows a note: title, snippet, its site and the day it was saved, its tags. */
function hitItem(hit: Hit): HTMLLIElement {
  let site = '';
  try {
    site = hit.url ? new URL(hit.url).host : '';
  } catch {
    // Not a URL: no site.
  }
  const saved = element('time', { dateTime: hit.created, textContent: hit.created.slice(0, 10) });
  const item = noteItem(hit, [markedSnippet(hit.snippet)], 'snippet');
  item.append(element('p', { className: 'muted' }, [site ? `${site} · ` : '', saved]));
  if (hit.tags.length) {
    const tags = element(
      'ul',
      { className: 'tags' },
      hit.tags.map((tag) =>
        element('li', {}, [
          element('a', {
            className: 'badge',
            href: `${LIBRARY_PATH}?${new URLSearchParams({ tag })}`,
            textContent: `#${tag}`,
          }),
        ]),
      ),
    );
    tags.setAttribute('aria-label', 'Tags');
    item.append(tags);
  }
  return item;
}

/** The message of an error answer: a 422's first issue, or the status. */
async function problemOf(response: Response): Promise<string> {
  try {
    const { detail } = (await response.json()) as { detail?: unknown };
    if (Array.isArray(detail) && typeof detail[0]?.msg === 'string') return detail[0].msg;
    if (typeof detail === 'string') return detail;
  } catch {
    // Not JSON: say the status.
  }
  return `Search failed (${response.status}).`;
}

function setUpSearch(form: HTMLFormElement, live: HTMLElement): void {
  const input = form.querySelector<HTMLInputElement>('input[name="q"]');
  if (!input) return;
  // What the results stand in for while shown (the Library's notes): hidden, so no list continues below them.
  const replaced = document.querySelector<HTMLElement>('[data-search-replaces]');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: AbortController | null = null;

  const show = (...nodes: Node[]) => {
    live.replaceChildren(...nodes);
    if (replaced) replaced.hidden = nodes.length > 0;
  };
  const run = async (query: string) => {
    pending?.abort();
    if (!query.trim()) return show();
    const heading = element('h2', { id: 'search-live-heading', textContent: `Results for “${query.trim()}”` });
    const controller = new AbortController();
    pending = controller;
    try {
      const response = await fetch(`${SEARCH_API}?${new URLSearchParams({ q: query, limit: String(LIVE_RESULTS) })}`, {
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
        signal: controller.signal,
      });
      if (!response.ok)
        return show(heading, element('p', { className: 'muted', textContent: await problemOf(response) }));
      const answer = (await response.json()) as { results: Hit[]; mode: string; cursor: string | null };
      const summary = element('p', {
        className: 'muted search-mode',
        textContent: `${answer.results.length ? `${answer.results.length}${answer.cursor ? '+' : ''} found` : 'No note matches'} · by ${answer.mode}`,
      });
      if (!answer.results.length) return show(heading, summary);
      const list = element('ul', { className: 'list notes search-results' }, answer.results.map(hitItem));
      list.setAttribute('aria-labelledby', heading.id);
      show(heading, list, summary);
    } catch (error) {
      if ((error as Error).name !== 'AbortError')
        show(heading, element('p', { className: 'muted', textContent: 'Search failed.' }));
    }
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(input.value), DEBOUNCE_MS);
  });
}

async function loadRelated(section: HTMLElement): Promise<void> {
  const list = section.querySelector<HTMLElement>('[data-related-list]');
  const source = section.dataset.related;
  if (!list || !source) return;
  const response = await fetch(source, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (!response.ok) return;
  const { related } = (await response.json()) as { related: RelatedNote[] };
  list.replaceChildren(
    related.length
      ? element(
          'ul',
          { className: 'list notes related-notes' },
          related.map((note) => noteItem(note, [note.reason], 'muted related-reason')),
        )
      : element('p', { className: 'muted', textContent: 'No related notes yet.' }),
  );
}

const form = document.querySelector<HTMLFormElement>('[data-search-form]');
const live = document.querySelector<HTMLElement>('[data-search-live]');
if (form && live) setUpSearch(form, live);
for (const section of document.querySelectorAll<HTMLElement>('section[data-related]')) void loadRelated(section);
