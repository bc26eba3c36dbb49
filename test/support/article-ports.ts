import { type ArticleStore, articleImageUrl, type KeepArticlePorts } from '../../functions/core/article/article';
import { type ArticleContent, encodeContent } from '../../functions/core/article/content';
import type { FetchOutcome } from '../../functions/core/enrich/enrichment';

export const ARTICLE_BASE_URL = 'https://gleaner.test';

/** An article store in memory, with every object it holds visible to the test. */
export class MemoryArticleStore implements ArticleStore {
  readonly objects = new Map<string, { mediaType: string; bytes: Uint8Array }>();

  async putContent(articleId: string, content: ArticleContent) {
    const { body, hash } = encodeContent(content);
    this.objects.set(`${articleId}/content.json`, { mediaType: 'application/json', bytes: body });
    return { hash, bytes: body.length };
  }

  async getContent(articleId: string) {
    const object = this.objects.get(`${articleId}/content.json`);
    return object ? (JSON.parse(Buffer.from(object.bytes).toString('utf8')) as ArticleContent) : null;
  }

  async putImage(articleId: string, fileName: string, mediaType: string, bytes: Uint8Array) {
    this.objects.set(`${articleId}/images/${fileName}`, { mediaType, bytes });
  }

  async getImage(articleId: string, fileName: string) {
    return this.objects.get(`${articleId}/images/${fileName}`) ?? null;
  }

  async deleteArticle(articleId: string) {
    const keys = [...this.objects.keys()].filter((key) => key.startsWith(`${articleId}/`));
    for (const key of keys) this.objects.delete(key);
    return keys.length;
  }
}

/** Keep-article ports over a memory store; images are answered from `images` (address → response). */
export function memoryArticlePorts(
  now: () => Date,
  images: ReadonlyMap<string, FetchOutcome> = new Map(),
): KeepArticlePorts & { store: MemoryArticleStore } {
  return {
    store: new MemoryArticleStore(),
    fetchImage: async (url) => images.get(url) ?? { ok: false, retryable: false, reason: 'dns: not found' },
    imageUrl: (articleId, fileName) => articleImageUrl(ARTICLE_BASE_URL, articleId, fileName),
    now,
  };
}
