import { sanitizeText } from './text';

/** Text as HTML content or a quoted attribute value: the one escaper every server-rendered page uses. */
export function escapeHtml(text: string): string {
  return sanitizeText(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
