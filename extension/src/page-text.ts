import { SAVE_URL_MAX_LENGTH } from '../../functions/core/wire/save';

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

/** Whether an address can be saved as it is, only without its query string, or not at all. */
export type UrlFit =
  | { readonly kind: 'fits' }
  /** Too long, but the address without `?query` and `#fragment` fits. */
  | { readonly kind: 'without-query'; readonly url: string; readonly length: number }
  | { readonly kind: 'too-long'; readonly length: number; readonly shortest: number };

export function fitUrl(url: string): UrlFit {
  if (url.length <= SAVE_URL_MAX_LENGTH) return { kind: 'fits' };
  const parsed = new URL(url);
  const shortest = `${parsed.origin}${parsed.pathname}`;
  return shortest.length <= SAVE_URL_MAX_LENGTH
    ? { kind: 'without-query', url: shortest, length: url.length }
    : { kind: 'too-long', length: url.length, shortest: shortest.length };
}

/** Why an address cannot be saved as it is, for the popup and notifications. */
export function tooLongMessage(fit: Exclude<UrlFit, { kind: 'fits' }>): string {
  const limit = `${fit.length.toLocaleString('en')} characters; Gleaner saves addresses of at most ${SAVE_URL_MAX_LENGTH.toLocaleString('en')}`;
  return fit.kind === 'without-query'
    ? `This address is too long (${limit}). Without its query string it fits.`
    : `This address is too long (${limit}), and ${fit.shortest.toLocaleString('en')} even without its query string, so this page cannot be saved.`;
}
