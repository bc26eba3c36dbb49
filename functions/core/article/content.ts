import { createHash } from 'node:crypto';

/**
 * A kept article's content (its sanitized HTML and its text) and the form the article store keeps it
 * in. Apart from the article pipeline (article.ts), so the store does not load extraction and
 * sanitizing.
 */
export interface ArticleContent {
  readonly html: string;
  readonly text: string;
}

/** The stored form of an article's content, and its hash. */
export function encodeContent(content: ArticleContent): { body: Buffer; hash: string } {
  const body = Buffer.from(JSON.stringify({ html: content.html, text: content.text }));
  return { body, hash: createHash('sha256').update(body).digest('hex') };
}

export function decodeContent(body: Uint8Array): ArticleContent {
  const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as { html?: unknown; text?: unknown };
  return { html: String(parsed.html ?? ''), text: String(parsed.text ?? '') };
}
