/** An article's plain text, its length in words and in reading minutes. */

/** Words a minute of an adult's silent reading of non-fiction (Brysbaert 2019: 238). */
const WORDS_PER_MINUTE = 238;

/** Elements after which the plain text breaks a line (a paragraph, an item, a row). */
const BLOCKS =
  'p, div, section, article, aside, h1, h2, h3, h4, h5, h6, li, dt, dd, pre, blockquote, figure, figcaption, tr, table, ul, ol, dl, hr, br, details, summary';

interface TextNode {
  readonly nodeType: number;
  textContent: string | null;
  readonly parentElement: TextElement | null;
}
interface TextElement {
  readonly tagName: string;
  readonly textContent: string | null;
  readonly parentElement: TextElement | null;
  after(...nodes: string[]): void;
  querySelectorAll(selectors: string): Iterable<TextElement>;
}

/**
 * Sanitized article HTML as plain text: whitespace collapsed as a browser shows it (but kept inside
 * `<pre>`), a blank line between blocks.
 */
export async function articleText(html: string): Promise<string> {
  const { parseHTML } = await import('linkedom');
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`) as unknown as {
    document: { body: TextElement; createTreeWalker(root: TextElement, show: number): { nextNode(): TextNode | null } };
  };
  const walker = document.createTreeWalker(document.body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!insidePre(node.parentElement)) node.textContent = (node.textContent ?? '').replace(/\s+/g, ' ');
  }
  for (const block of document.body.querySelectorAll(BLOCKS)) block.after('\n\n');
  return (document.body.textContent ?? '')
    .split('\n')
    .map((line) => line.trimEnd().replace(/^ (?=\S)/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function insidePre(element: TextElement | null): boolean {
  for (let current = element; current; current = current.parentElement) {
    if (current.tagName.toLowerCase() === 'pre') return true;
  }
  return false;
}

const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Words as Unicode segments them: spaces in German and Arabic, dictionary words in Chinese and Japanese. */
export function wordCount(text: string): number {
  let count = 0;
  // A piece at a time, cut at spaces: V8's segmenter slows down sharply over one long string
  // (42,000 words on one line: over a minute).
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SEGMENT_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space;
    }
    for (const segment of WORDS.segment(text.slice(start, end))) if (segment.isWordLike) count++;
    start = end;
  }
  return count;
}

/** Characters handed to the segmenter at once. */
const SEGMENT_CHARS = 2000;

export function readingMinutes(words: number): number {
  return words === 0 ? 0 : Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}
