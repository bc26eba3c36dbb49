import { describeTextQuote } from '../../functions/core/article/anchor';

/**
 * The reader's highlighting: a passage selected in the kept page fills in the highlight form's
 * passage, with the text just before and after it in the page (a TextQuoteSelector's prefix and
 * suffix, as the page's text nodes have it), so the server finds that very passage again. Typing in
 * the passage instead drops the context: a pasted quote is found by itself. A bar at the bottom of
 * the screen then offers to save it at once or to add a comment first. Without script the form still
 * takes a pasted passage (and the bar stays hidden).
 */

const reader = document.querySelector<HTMLElement>('article.reader');
const form = document.querySelector<HTMLFormElement>('#highlight-form');
const quote = form?.querySelector<HTMLTextAreaElement>('textarea[name="quote"]');
const prefix = form?.querySelector<HTMLInputElement>('input[name="prefix"]');
const suffix = form?.querySelector<HTMLInputElement>('input[name="suffix"]');

if (reader && form && quote && prefix && suffix) {
  const hint = form.querySelector<HTMLElement>('#highlight-quote-hint');
  const take = () => {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) return;
    const range = selection.getRangeAt(0);
    if (!reader.contains(range.commonAncestorContainer)) return;
    const text = selection.toString().trim();
    if (!text) return;
    // Offsets in the reader's text: what lies before the selection, then the selection itself.
    const before = document.createRange();
    before.selectNodeContents(reader);
    before.setEnd(range.startContainer, range.startOffset);
    const start = before.toString().length;
    const selector = describeTextQuote(reader.textContent ?? '', { start, end: start + range.toString().length });
    quote.value = text;
    prefix.value = selector.prefix;
    suffix.value = selector.suffix;
    if (hint) hint.textContent = 'Selected. Add a comment if you like, then Save highlight.';
    if (bar) bar.hidden = false;
  };
  // The form is below the page: a bar at the bottom of the screen saves the selection, or takes the
  // person to the comment field first.
  const bar = document.querySelector<HTMLElement>('#selection-bar');
  bar?.querySelector('[data-add-comment]')?.addEventListener('click', () => {
    const comment = form.querySelector<HTMLInputElement>('input[name="comment"]');
    comment?.scrollIntoView({ block: 'center' });
    comment?.focus();
    bar.hidden = true;
  });
  let timer = 0;
  document.addEventListener('selectionchange', () => {
    // Settles once the person stops dragging.
    window.clearTimeout(timer);
    timer = window.setTimeout(take, 150);
  });
  quote.addEventListener('input', () => {
    prefix.value = '';
    suffix.value = '';
  });
}
