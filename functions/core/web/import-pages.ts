import { escapeHtml } from '../text/escape';
import { settingsNavigation } from './layout';
import { type PageContext, page } from './library-pages';

/**
 * Settings › Import: pick an export, and the page uploads it, starts the import and follows it
 * (import.js, through the per-user API's imports): a progress bar of links done, then the report
 * with its counts, what the export could not carry and every row skipped with its reason. The
 * import runs on the server, so closing the tab stops nothing: the page, opened again, follows the
 * import under way or shows the last one's report.
 */
export function importPage(context: PageContext): string {
  const csrf = escapeHtml(context.signedIn.csrfToken);
  return page(
    context,
    'Import',
    'settings',
    `<h1>Settings › Import</h1>
${settingsNavigation('import')}
<p>Bring your library from Pocket (its zip, or <code>ril_export.html</code>), Omnivore (its zip), Instapaper, Readwise (the Reader documents and highlights CSVs, together in a zip), Raindrop, Karakeep, Linkwarden, Wallabag, Hypothesis, a browser’s bookmark file, or a Gleaner export. Highlights come with them. A page you have saved already is merged, never duplicated, and importing the same file again changes nothing.</p>
<form class="stack" data-import data-csrf="${csrf}">
<label for="import-file">Export file</label>
<input id="import-file" name="file" type="file" required accept=".zip,.csv,.json,.html,.htm,.txt" aria-describedby="import-file-hint">
<p id="import-file-hint" class="hint muted">A zip as the service hands it out, or one of the files inside it.</p>
<button type="submit">Import</button>
</form>
<p class="error" role="alert" data-import-error hidden></p>
<section aria-labelledby="import-progress-title" data-import-progress hidden>
<h2 id="import-progress-title">Progress</h2>
<progress id="import-bar" max="1" value="0" aria-labelledby="import-progress-title"></progress>
<p role="status" data-import-status></p>
<p class="muted">The import goes on if you close this page.</p>
</section>
<section aria-labelledby="import-report-title" data-import-report hidden>
<h2 id="import-report-title">Report</h2>
<dl class="import-counts" data-import-counts></dl>
<ul data-import-notices></ul>
<h3 data-import-notes-title>Notes without a bookmark</h3>
<ul class="import-notes" data-import-notes></ul>
<h3 data-import-skipped-title>Rows skipped</h3>
<ol class="import-skipped" data-import-skipped></ol>
</section>`,
    ['import.js'],
  );
}
