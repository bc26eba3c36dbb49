/**
 * Settings › Import: the file picked is uploaded where the per-user API says (a presigned S3 URL on
 * AWS), the import started, and followed until it ends: a progress bar, then the report. On load the
 * page follows an import still under way, or shows the last one's report.
 */

import { webPaths } from '../../functions/core/web/paths';

const CSRF_HEADER = 'X-CSRF-Token';
/** How often the page reads an import's progress. */
const POLL_MS = 700;

interface SkippedRow {
  file?: string;
  row: number;
  reason: string;
}

interface ImportState {
  id: string;
  status: 'uploading' | 'queued' | 'running' | 'done' | 'failed';
  file_name: string;
  format: string | null;
  rows: number | null;
  links: number | null;
  done: number;
  imported: number;
  merged: number;
  notes: number;
  highlights: number;
  articles: number;
  skipped_count: number;
  over_cap: number;
  note_cap: number | null;
  enrichment_waiting: number;
  notices: string[];
  error: string | null;
  skipped?: SkippedRow[];
  notes_without_bookmark?: { title: string; highlights: number }[];
}

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

function setUpImport(form: HTMLFormElement): void {
  const api = webPaths.imports;
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    [CSRF_HEADER]: form.dataset.csrf ?? '',
  };
  const find = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;
  const error = find<HTMLElement>('[data-import-error]');
  const progress = find<HTMLElement>('[data-import-progress]');
  const bar = find<HTMLProgressElement>('#import-bar');
  const status = find<HTMLElement>('[data-import-status]');
  const report = find<HTMLElement>('[data-import-report]');
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;

  const fail = (message: string) => {
    error.textContent = message;
    error.hidden = false;
    button.disabled = false;
  };

  const showProgress = (state: ImportState) => {
    progress.hidden = false;
    const total = state.links ?? 0;
    bar.max = Math.max(total, 1);
    bar.value = state.done;
    status.textContent =
      state.links === null
        ? `Reading ${state.file_name}…`
        : `${state.done.toLocaleString('en')} of ${plural(total, 'link')} done · ${plural(state.skipped_count, 'row')} skipped`;
  };

  const showReport = (state: ImportState) => {
    showProgress(state);
    // A failed import read nothing: the error says why, a report of zeros would say nothing more.
    report.hidden = state.status === 'failed';
    const counts = find<HTMLDListElement>('[data-import-counts]');
    const entries: [string, string][] = [
      ['File', `${state.file_name}${state.format ? ` (${state.format})` : ''}`],
      ['Rows read', (state.rows ?? 0).toLocaleString('en')],
      ['New notes', state.imported.toLocaleString('en')],
      ['Merged into notes you had', state.merged.toLocaleString('en')],
      ['Notes without a bookmark', state.notes.toLocaleString('en')],
      ['Highlights', state.highlights.toLocaleString('en')],
      ['Articles kept', state.articles.toLocaleString('en')],
      ['Rows skipped', state.skipped_count.toLocaleString('en')],
      ['Pages waiting to be fetched', state.enrichment_waiting.toLocaleString('en')],
    ];
    if (state.over_cap)
      entries.push([
        'Left out at your note cap',
        `${state.over_cap.toLocaleString('en')} (cap ${state.note_cap ?? '?'})`,
      ]);
    counts.replaceChildren(
      ...entries.flatMap(([term, value]) => {
        const dt = document.createElement('dt');
        dt.textContent = term;
        const dd = document.createElement('dd');
        dd.textContent = value;
        return [dt, dd];
      }),
    );
    find<HTMLUListElement>('[data-import-notices]').replaceChildren(
      ...state.notices.map((notice) => {
        const li = document.createElement('li');
        li.textContent = notice;
        return li;
      }),
    );
    // Books (and text notes) the export names no page for, each kept as one note.
    const notes = state.notes_without_bookmark ?? [];
    find<HTMLElement>('[data-import-notes-title]').hidden = notes.length === 0;
    find<HTMLUListElement>('[data-import-notes]').replaceChildren(
      ...notes.map((note) => {
        const li = document.createElement('li');
        li.textContent = `${note.title} (${plural(note.highlights, 'highlight')})`;
        return li;
      }),
    );
    const skipped = state.skipped ?? [];
    find<HTMLElement>('[data-import-skipped-title]').hidden = skipped.length === 0;
    find<HTMLOListElement>('[data-import-skipped]').replaceChildren(
      ...skipped.map((row) => {
        const li = document.createElement('li');
        li.textContent = `${row.file ? `${row.file} ` : ''}row ${row.row}: ${row.reason}`;
        return li;
      }),
    );
    status.textContent =
      state.status === 'done'
        ? `Done: ${plural(state.imported, 'new note')}, ${state.notes ? `${plural(state.notes, 'note')} without a bookmark, ` : ''}${plural(state.merged, 'merged link')}, ${plural(state.skipped_count, 'row')} skipped.`
        : 'The import failed.';
    if (state.status === 'failed') fail(`The import failed: ${state.error ?? 'for a reason the server did not give'}`);
    button.disabled = false;
  };

  const follow = async (id: string) => {
    for (;;) {
      const response = await fetch(`${api}/${encodeURIComponent(id)}`, { headers: { Accept: 'application/json' } });
      if (!response.ok)
        return fail(`The import’s progress could not be read (the server answered ${response.status}).`);
      const state = (await response.json()) as ImportState;
      if (state.status === 'done' || state.status === 'failed') return showReport(state);
      showProgress(state);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = form.querySelector<HTMLInputElement>('input[type="file"]')?.files?.[0];
    if (!file) return fail('Pick an export file first.');
    error.hidden = true;
    report.hidden = true;
    button.disabled = true;
    try {
      const created = await fetch(api, { method: 'POST', headers, body: JSON.stringify({ file_name: file.name }) });
      if (created.status === 409) {
        const { detail } = (await created.json()) as { detail: { import_id?: string } };
        fail('Another import is still under way: it is shown below. Start the next once it is done.');
        if (detail.import_id) await follow(detail.import_id);
        return;
      }
      if (created.status !== 201) return fail(`The import could not be made (the server answered ${created.status}).`);
      const { import: made, upload } = (await created.json()) as {
        import: ImportState;
        upload: { method: string; url: string; headers: Record<string, string> };
      };
      status.textContent = `Uploading ${file.name}…`;
      progress.hidden = false;
      const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: file });
      if (!put.ok) return fail(`The file could not be uploaded (the upload answered ${put.status}). Try again.`);
      const started = await fetch(`${api}/${encodeURIComponent(made.id)}/start`, { method: 'POST', headers });
      if (started.status !== 202)
        return fail(`The import could not be started (the server answered ${started.status}).`);
      await follow(made.id);
    } catch {
      fail('The server could not be reached. Try again.');
    }
  });

  // An import under way (the tab was closed) is followed; else the last one's report is shown.
  void (async () => {
    const response = await fetch(api, { headers: { Accept: 'application/json' } });
    if (!response.ok) return;
    const [latest] = ((await response.json()) as { imports: ImportState[] }).imports;
    if (latest && latest.status !== 'uploading') await follow(latest.id);
  })();
}

const importForm = document.querySelector<HTMLFormElement>('form[data-import]');
if (importForm) setUpImport(importForm);
