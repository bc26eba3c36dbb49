/** What the extension makes of a page's text and address, apart from the browser APIs that read them. */

/** Plain text with its line breaks kept; trailing spaces and blank edges removed. */
export function cleanSelection(text: string): string | null {
  const cleaned = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/^\n+|\n+$/g, '');
  return cleaned.trim() ? cleaned : null;
}

/** Gleaner saves web pages only; the browser's own pages have nothing to bookmark. */
export function isSavable(url: string | undefined): boolean {
  return !!url && /^https?:\/\//i.test(url);
}
