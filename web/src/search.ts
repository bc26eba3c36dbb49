import { notePath } from '../../functions/core/web/paths';

/**
 * The Library's search box with results as you type, and a note's related notes loaded in place.
 * Both pages work without it: the box submits to the results page, and the related notes are a link.
 * Results come from the per-user API with the session cookie (GETs need no CSRF token). Snippets come
 * as HTML with matches in `<mark>`; only their text and marks are taken over, never other markup.
 */

const SEARCH_API = '/api/v2/me/search';
/** Waits this long after the last keystroke before asking. */
const DEBOUNCE_MS = 200;
const LIVE_RESULTS = 10;

interface Hit {
  readonly note_id: string;
  readonly title: string;
  readonly url: string | null;
  readonly snippet: string;
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: AbortController | null = null;

  const show = (...nodes: Node[]) => live.replaceChildren(...nodes);
  const run = async (query: string) => {
    pending?.abort();
    if (!query.trim()) return show();
    const controller = new AbortController();
    pending = controller;
    try {
      const response = await fetch(`${SEARCH_API}?${new URLSearchParams({ q: query, limit: String(LIVE_RESULTS) })}`, {
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
        signal: controller.signal,
      });
      if (!response.ok) return show(element('p', { className: 'muted', textContent: await problemOf(response) }));
      const answer = (await response.json()) as { results: Hit[]; mode: string; cursor: string | null };
      const summary = element('p', {
        className: 'muted search-mode',
        textContent: `${answer.results.length ? `${answer.results.length}${answer.cursor ? '+' : ''} found` : 'No note matches'} · by ${answer.mode}`,
      });
      if (!answer.results.length) return show(summary);
      const list = element(
        'ul',
        { className: 'list notes search-results' },
        answer.results.map((hit) => noteItem(hit, [markedSnippet(hit.snippet)], 'snippet')),
      );
      show(list, summary);
    } catch (error) {
      if ((error as Error).name !== 'AbortError')
        show(element('p', { className: 'muted', textContent: 'Search failed.' }));
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
