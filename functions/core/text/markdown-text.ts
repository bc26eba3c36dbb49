/**
 * Markdown → plain text for feed entries (`markdownToPlainText(markdown: string): string`).
 *
 * Not a renderer: it removes the markers a reader should not see and keeps everything else as typed.
 * - `>` quote markers go, nested ones too; heading `#` markers go (a `#tag` stays: a heading needs a
 *   space after its `#`s); code fences go, their content stays verbatim.
 * - `[text](url)` and `![alt](url)` become `text (url)`, or just `url` when the text is empty or the
 *   URL itself; autolinks `<url>` become `url`.
 * - Emphasis `*`/`_` delimiters and code-span backticks go, following CommonMark's flanking rules so
 *   `snake_case`, `2 * 3` and bare URLs survive; backslash escapes (`\[`, `\*`, …) are resolved.
 * - Lists, tables, rules, HTML and entity references stay as typed.
 * - Blocks are separated by one blank line; line breaks inside a block are kept.
 *
 * Total on any string (never throws) and linear enough for 100 KB bodies: link scans are bounded and
 * links inside link text are not parsed, so recursion is one level deep at most.
 */

/** The longest link destination or title looked at; longer ones stay as typed. */
const MAX_LINK_SCAN = 4096;
/** Deeper parentheses in a link destination are not a link (cmark's limit); keeps `[x](` spam linear. */
const MAX_LINK_PAREN_DEPTH = 32;

const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const BACKSLASH_ESCAPE = /\\([!-/:-@[-`{-~])/g;
const WHITESPACE = /^\s$/u;
const PUNCTUATION = /^[\p{P}\p{S}]$/u;
const QUOTE_MARKER = /^ {0,3}>[ \t]?/;
const ATX_HEADING_OPENER = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
const FENCE_OPENER = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSER = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const URI_AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/y;
const EMAIL_AUTOLINK = /<([^\s<>@]+@[^\s<>@]+)>/y;
const BARE_URL = /https?:\/\/[^\s<>]*/y;
/** Punctuation that ends a sentence rather than a bare URL (as in GFM's autolink extension). */
const URL_TRAILING_PUNCTUATION = new Set(`.,:;!?*_~'")]`);

export function markdownToPlainText(markdown: string): string {
  return splitBlocks(markdown)
    .map((block) => (block.verbatim ? block.lines.join('\n') : inlineToPlainText(block.lines.join('\n')).trim()))
    .filter((text) => text.trim() !== '')
    .join('\n\n');
}

// ---- blocks ----------------------------------------------------------------------------------

interface Block {
  readonly lines: string[];
  /** Fenced code: no inline processing. */
  readonly verbatim: boolean;
}

interface OpenFence {
  readonly marker: string;
  /** Quote depth the fence opened at; that many `>` markers are part of each code line. */
  readonly quoteDepth: number;
  readonly lines: string[];
}

function splitBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let fence: OpenFence | null = null;
  const endParagraph = () => {
    if (paragraph.length > 0) blocks.push({ lines: paragraph, verbatim: false });
    paragraph = [];
  };
  const endFence = (open: OpenFence) => {
    const lines = trimBlankLines(open.lines.map((line) => line.trimEnd()));
    if (lines.length > 0) blocks.push({ lines, verbatim: true });
    fence = null;
  };

  for (const line of markdown.split(/\r\n?|\n/)) {
    if (fence) {
      const { rest } = stripQuoteMarkers(line, fence.quoteDepth);
      if (closesFence(rest, fence.marker)) endFence(fence);
      else fence.lines.push(rest);
      continue;
    }
    const { rest, depth } = stripQuoteMarkers(line, Number.POSITIVE_INFINITY);
    const marker = fenceOpener(rest);
    if (marker) {
      endParagraph();
      fence = { marker, quoteDepth: depth, lines: [] };
    } else if (rest.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(stripHeadingMarkers(rest).trimEnd());
    }
  }
  endParagraph();
  // An unclosed fence runs to the end of the document, as in CommonMark.
  if (fence) endFence(fence);
  return blocks;
}

function stripQuoteMarkers(line: string, maxDepth: number): { rest: string; depth: number } {
  let rest = line;
  let depth = 0;
  for (let marker = QUOTE_MARKER.exec(rest); marker && depth < maxDepth; marker = QUOTE_MARKER.exec(rest)) {
    rest = rest.slice(marker[0].length);
    depth++;
  }
  return { rest, depth };
}

function fenceOpener(line: string): string | null {
  const match = FENCE_OPENER.exec(line);
  if (!match) return null;
  const marker = match[1]!;
  // A backtick fence's info string cannot contain backticks (that is inline code instead).
  return marker.startsWith('`') && match[2]!.includes('`') ? null : marker;
}

function closesFence(line: string, marker: string): boolean {
  const match = FENCE_CLOSER.exec(line);
  return !!match && match[1]![0] === marker[0] && match[1]!.length >= marker.length;
}

/** `## Title ##` → `Title`. Done by hand: a trailing-`#` regex backtracks quadratically on long runs. */
function stripHeadingMarkers(line: string): string {
  const opener = ATX_HEADING_OPENER.exec(line);
  if (!opener) return line;
  const text = line.slice(opener[0].length).trimEnd();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  const closedBySequence = end === 0 || text[end - 1] === ' ' || text[end - 1] === '\t';
  return closedBySequence ? text.slice(0, end).trimEnd() : text;
}

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start] === '') start++;
  while (end > start && lines[end - 1] === '') end--;
  return lines.slice(start, end);
}

// ---- inlines ---------------------------------------------------------------------------------

/** An emphasis delimiter run; `remaining` counts the characters not matched as emphasis. */
interface DelimiterRun {
  readonly char: '*' | '_';
  remaining: number;
  readonly canOpen: boolean;
  readonly canClose: boolean;
}

/** Plain output text, or a delimiter run that may turn out to be emphasis. */
type Piece = string | DelimiterRun;

interface Token {
  readonly piece: Piece;
  readonly end: number;
}

interface InlineContext {
  readonly text: string;
  /** Position of each `[` → its balanced `]`; computed once so bracket-heavy input stays linear. */
  readonly closingBracket: ReadonlyMap<number, number>;
  /** False inside link text: links do not nest. */
  readonly allowLinks: boolean;
}

function inlineToPlainText(text: string, allowLinks = true): string {
  const context: InlineContext = { text, closingBracket: matchBrackets(text), allowLinks };
  const pieces: Piece[] = [];
  let plainFrom = 0;
  let i = 0;
  while (i < text.length) {
    const token = readToken(context, i);
    if (!token) {
      i++;
      continue;
    }
    if (plainFrom < i) pieces.push(text.slice(plainFrom, i));
    pieces.push(token.piece);
    i = plainFrom = token.end;
  }
  if (plainFrom < text.length) pieces.push(text.slice(plainFrom));
  return resolveEmphasis(pieces);
}

function readToken(context: InlineContext, i: number): Token | null {
  const { text, allowLinks } = context;
  switch (text[i]) {
    case '\\':
      return backslashEscape(text, i);
    case '`':
      return codeSpan(text, i);
    case '*':
    case '_':
      return delimiterRun(text, i);
    case '!':
      return allowLinks && text[i + 1] === '[' ? link(context, i + 1) : null;
    case '[':
      return allowLinks ? link(context, i) : null;
    case '<':
      return autolink(text, i);
    case 'h':
      return bareUrl(text, i);
    default:
      return null;
  }
}

function backslashEscape(text: string, i: number): Token | null {
  const next = text[i + 1];
  if (next === '\n') return { piece: '\n', end: i + 2 }; // hard line break
  return next !== undefined && ASCII_PUNCTUATION.test(next) ? { piece: next, end: i + 2 } : null;
}

/** A code span keeps its content literally; an unmatched backtick run is literal text. */
function codeSpan(text: string, i: number): Token {
  const length = runLength(text, i);
  const fence = '`'.repeat(length);
  for (let j = text.indexOf(fence, i + length); j !== -1; j = text.indexOf(fence, j + runLength(text, j))) {
    if (runLength(text, j) !== length) continue;
    const content = text.slice(i + length, j);
    const padded = content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '';
    return { piece: padded ? content.slice(1, -1) : content, end: j + length };
  }
  return { piece: fence, end: i + length };
}

function delimiterRun(text: string, i: number): Token {
  const char = text[i] as '*' | '_';
  const length = runLength(text, i);
  // Text edges count as whitespace.
  const before = [...text.slice(Math.max(0, i - 2), i)].at(-1) ?? ' ';
  const after = String.fromCodePoint(text.codePointAt(i + length) ?? 0x20);
  const [beforeSpace, afterSpace] = [WHITESPACE.test(before), WHITESPACE.test(after)];
  const [beforePunct, afterPunct] = [PUNCTUATION.test(before), PUNCTUATION.test(after)];
  const leftFlanking = !afterSpace && (!afterPunct || beforeSpace || beforePunct);
  const rightFlanking = !beforeSpace && (!beforePunct || afterSpace || afterPunct);
  // `_` inside a word is not emphasis (snake_case).
  const canOpen = char === '*' ? leftFlanking : leftFlanking && (!rightFlanking || beforePunct);
  const canClose = char === '*' ? rightFlanking : rightFlanking && (!leftFlanking || afterPunct);
  return { piece: { char, remaining: length, canOpen, canClose }, end: i + length };
}

/** Drops the delimiters that pair up as emphasis, innermost opener first; the rest stay as text. */
function resolveEmphasis(pieces: readonly Piece[]): string {
  const openers: Record<DelimiterRun['char'], DelimiterRun[]> = { '*': [], _: [] };
  for (const piece of pieces) {
    if (typeof piece === 'string') continue;
    const stack = openers[piece.char];
    while (piece.canClose && piece.remaining > 0 && stack.length > 0) {
      const opener = stack[stack.length - 1]!;
      const used = Math.min(opener.remaining, piece.remaining);
      opener.remaining -= used;
      piece.remaining -= used;
      if (opener.remaining === 0) stack.pop();
    }
    if (piece.canOpen && piece.remaining > 0) stack.push(piece);
  }
  return pieces.map((piece) => (typeof piece === 'string' ? piece : piece.char.repeat(piece.remaining))).join('');
}

/** `[text](destination "title")` at `open` (the `[`), as `text (destination)`. */
function link(context: InlineContext, open: number): Token | null {
  const { text } = context;
  const close = context.closingBracket.get(open);
  if (close === undefined || text[close + 1] !== '(') return null;
  const destination = linkDestination(text, close + 2);
  if (!destination) return null;
  const label = inlineToPlainText(text.slice(open + 1, close), false).trim();
  return { piece: formatLink(label, destination.url), end: destination.end };
}

function formatLink(label: string, url: string): string {
  if (url === '') return label;
  return label === '' || label === url ? url : `${label} (${url})`;
}

/** Parses `destination "title")` from `start` (just after the `(`); the title is dropped. */
function linkDestination(text: string, start: number): { url: string; end: number } | null {
  let i = skipSpaces(text, start);
  let url: string;
  if (text[i] === '<') {
    const length = text.slice(i + 1, i + 1 + MAX_LINK_SCAN).indexOf('>');
    if (length === -1) return null;
    url = text.slice(i + 1, i + 1 + length);
    if (/[<\n]/.test(url)) return null;
    i += length + 2;
  } else {
    const from = i;
    let depth = 0;
    for (; i < text.length && i - from < MAX_LINK_SCAN; i++) {
      const c = text[i]!;
      if (c === '\\' && ASCII_PUNCTUATION.test(text[i + 1] ?? '')) i++;
      else if (c === '(') {
        if (++depth > MAX_LINK_PAREN_DEPTH) return null;
      } else if (c === ')') {
        if (depth === 0) break;
        depth--;
      } else if (c <= ' ') break;
    }
    if (depth !== 0 || i - from >= MAX_LINK_SCAN) return null;
    url = text.slice(from, i);
  }
  i = skipSpaces(text, i);
  const titleEnd = linkTitleEnd(text, i);
  if (titleEnd !== null) i = skipSpaces(text, titleEnd);
  return text[i] === ')' ? { url: url.replace(BACKSLASH_ESCAPE, '$1'), end: i + 1 } : null;
}

/** End (exclusive) of a `"title"`, `'title'` or `(title)` starting at `i`, or null when there is none. */
function linkTitleEnd(text: string, i: number): number | null {
  const closer = { '"': '"', "'": "'", '(': ')' }[text[i] ?? ''];
  if (!closer) return null;
  for (let j = i + 1; j < text.length && j - i < MAX_LINK_SCAN; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === closer) return j + 1;
  }
  return null;
}

function autolink(text: string, i: number): Token | null {
  for (const pattern of [URI_AUTOLINK, EMAIL_AUTOLINK]) {
    pattern.lastIndex = i;
    const match = pattern.exec(text);
    if (match) return { piece: match[1]!, end: pattern.lastIndex };
  }
  return null;
}

/** A bare http(s) URL is kept as typed: its `_`/`*` are not emphasis, its `\` not escapes. */
function bareUrl(text: string, i: number): Token | null {
  // Where GFM recognises one: at a word start, or just inside `(` or an emphasis delimiter.
  if (i > 0 && !/[\s(*_~]/.test(text[i - 1]!)) return null;
  BARE_URL.lastIndex = i;
  const match = BARE_URL.exec(text);
  if (!match) return null;
  // By hand: a `[…]+$` regex backtracks quadratically on long punctuation runs.
  let end = match[0].length;
  while (end > 0 && URL_TRAILING_PUNCTUATION.has(match[0][end - 1]!)) end--;
  return end > 'https://'.length ? { piece: match[0].slice(0, end), end: i + end } : null;
}

/** Each `[` → its balanced `]`, ignoring backslash-escaped brackets. */
function matchBrackets(text: string): Map<number, number> {
  const closing = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '[') open.push(i);
    else if (c === ']' && open.length > 0) closing.set(open.pop()!, i);
  }
  return closing;
}

/** Length of the run of the character at `i`. */
function runLength(text: string, i: number): number {
  let end = i;
  while (text[end] === text[i]) end++;
  return end - i;
}

/** Spaces and tabs, and at most one line ending. */
function skipSpaces(text: string, i: number): number {
  let newlines = 0;
  while (text[i] === ' ' || text[i] === '\t' || (text[i] === '\n' && ++newlines === 1)) i++;
  return i;
}
