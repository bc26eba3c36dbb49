import { notePath } from '../../functions/core/web/paths';

/**
 * The Library's keyboard and its archive and star buttons, on the Library and on a note's page. The
 * pages work without it: each button submits the page's form, which posts to the Library and comes
 * back (post/redirect/get). With it, a button (or its key) changes the note through the per-user API
 * and the page follows in place, saying what happened in the page's status region:
 *
 *   j / k   the next / previous note (focused, so the focus ring shows it)
 *   e       archive the current note (or move it back to the inbox)
 *   s       star it (or unstar it)
 *   x       select it for the bulk actions
 *   /       the search box; Esc in it clears it
 */

const NOTE_API = '/api/v2/me/notes';
const CSRF_FIELD = 'csrf';
const CSRF_HEADER = 'X-CSRF-Token';

type StateAction = 'archive' | 'star';

const status = document.getElementById('library-status');
/** Says `message` to screen readers (a polite live region). */
function announce(message: string): void {
  if (!status) return;
  // Emptied first, so the same message twice is read twice.
  status.textContent = '';
  setTimeout(() => {
    status.textContent = message;
  }, 50);
}

/** The notes the page shows: the Library's rows, or the note of a note's page. */
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('li.note-item[data-note-id]'));
const notePageNote = () => document.querySelector<HTMLElement>('form.note-state[data-note-id]');

/** The row the keyboard is on: the one holding the focus, else the one marked current. */
function currentRow(): HTMLElement | null {
  const focused = document.activeElement?.closest<HTMLElement>('li.note-item[data-note-id]');
  return focused ?? document.querySelector<HTMLElement>('li.note-item.current') ?? notePageNote();
}

function move(step: 1 | -1): void {
  const all = rows();
  if (all.length === 0) return;
  const from = currentRow();
  const index = from ? all.indexOf(from) : -1;
  const next = all[Math.min(all.length - 1, Math.max(0, index === -1 ? 0 : index + step))]!;
  focusRow(next);
  announce(`Note ${all.indexOf(next) + 1} of ${all.length}: ${next.dataset.title ?? ''}`);
}

function focusRow(row: HTMLElement): void {
  for (const other of rows()) other.classList.remove('current');
  row.classList.add('current');
  row.focus();
  row.scrollIntoView({ block: 'nearest' });
}

/** The view a row leaves when its state changes so (the inbox loses an archived note, and so on). */
function leavesView(row: HTMLElement): boolean {
  const view = row.closest<HTMLElement>('[data-view]')?.dataset.view;
  return (
    (view === 'inbox' && row.dataset.archived === 'true') ||
    (view === 'archive' && row.dataset.archived === 'false') ||
    (view === 'starred' && row.dataset.starred === 'false')
  );
}

function csrfToken(element: HTMLElement): string {
  return element.closest('form')?.querySelector<HTMLInputElement>(`input[name="${CSRF_FIELD}"]`)?.value ?? '';
}

/** Shows a note's state on its buttons (and its page's line), as the server renders them. */
function showState(note: HTMLElement): void {
  const archived = note.dataset.archived === 'true';
  const starred = note.dataset.starred === 'true';
  const id = note.dataset.noteId ?? '';
  for (const button of note.querySelectorAll<HTMLButtonElement>('button[data-state-action]')) {
    const isArchive = button.dataset.stateAction === 'archive';
    const action = isArchive ? (archived ? 'unarchive' : 'archive') : starred ? 'unstar' : 'star';
    button.value = `${action} ${id}`;
    button.textContent = isArchive ? (archived ? 'Move to inbox' : 'Archive') : starred ? '★ Unstar' : '☆ Star';
  }
  const line = note.querySelector<HTMLElement>('[data-state-text]');
  if (line) line.textContent = `${archived ? 'Archived' : 'In the inbox'}${starred ? ' · starred' : ''}`;
}

async function toggle(note: HTMLElement, kind: StateAction): Promise<void> {
  const field = kind === 'archive' ? 'archived' : 'starred';
  const wanted = note.dataset[field] !== 'true';
  const title = note.dataset.title ?? 'The note';
  const response = await fetch(`${NOTE_API}/${encodeURIComponent(note.dataset.noteId ?? '')}`, {
    method: 'PATCH',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', [CSRF_HEADER]: csrfToken(note) },
    body: JSON.stringify({ [field]: wanted }),
  });
  if (!response.ok) {
    announce(`Not changed: ${title} (${response.status}).`);
    return;
  }
  note.dataset[field] = String(wanted);
  showState(note);
  const said =
    kind === 'archive'
      ? wanted
        ? `Archived: ${title}.`
        : `Moved back to the inbox: ${title}.`
      : wanted
        ? `Starred: ${title}.`
        : `Unstarred: ${title}.`;
  if (note.matches('li.note-item') && leavesView(note)) {
    const all = rows();
    const next = all[all.indexOf(note) + 1] ?? all[all.indexOf(note) - 1];
    note.remove();
    if (next) focusRow(next);
  }
  announce(said);
}

function toggleSelection(row: HTMLElement): void {
  const box = row.querySelector<HTMLInputElement>('input.select');
  if (!box) return;
  box.checked = !box.checked;
  announce(`${box.checked ? 'Selected' : 'Not selected'}: ${row.dataset.title ?? ''}`);
}

/** The buttons submit their form without script; with it they go through the API. */
for (const form of document.querySelectorAll<HTMLFormElement>('form[data-library-form], form.note-state')) {
  form.addEventListener('submit', (event) => {
    const button = event.submitter as HTMLButtonElement | null;
    const kind = button?.dataset.stateAction as StateAction | undefined;
    const note = button?.closest<HTMLElement>('[data-note-id]');
    if (!kind || !note) return;
    event.preventDefault();
    void toggle(note, kind);
  });
}

const search = document.querySelector<HTMLInputElement>('[data-search-form] input[name="q"]');

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target as HTMLElement;
  if (event.key === 'Escape' && search && target === search) {
    search.value = '';
    // The live results follow the box (search.js listens for input).
    search.dispatchEvent(new Event('input', { bubbles: true }));
    announce('Search cleared.');
    return;
  }
  if (target.closest('input, textarea, select, [contenteditable="true"]')) return;
  const note = currentRow();
  switch (event.key) {
    case 'j':
      move(1);
      break;
    case 'k':
      move(-1);
      break;
    case 'e':
    case 's':
      if (!note) return;
      void toggle(note, event.key === 'e' ? 'archive' : 'star');
      break;
    case 'x':
      if (!note?.matches('li.note-item')) return;
      toggleSelection(note);
      break;
    case '/':
      if (!search) return;
      search.focus();
      search.select();
      break;
    case 'Enter':
      // On a focused row (not a link or button in it), Enter opens the note.
      if (!note || target !== note || !note.matches('li.note-item')) return;
      location.assign(notePath(note.dataset.noteId ?? ''));
      break;
    default:
      return;
  }
  event.preventDefault();
});
