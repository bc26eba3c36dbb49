import { type ArticleRecord, type ArticleStore, keepArticle } from '../article/article';

/**
 * The readable copy an export kept (Omnivore's `content/{slug}.html`, Wallabag's `content`), kept as
 * the bookmark's article as the page worker keeps a fetched page: extracted, sanitized, stored. Its
 * images are not fetched (they are left out of the copy); the page worker's later fetch of the live
 * page replaces the copy, and a page gone by then keeps this one.
 */

export interface ImportedArticles {
  keep(bookmarkId: string, page: { html: string; url: string }): Promise<void>;
}

export interface ImportedArticlePorts {
  readonly store: ArticleStore;
  readonly bookmarks: { recordArticle(bookmarkId: string, article: ArticleRecord): Promise<boolean> };
  readonly now: () => Date;
}

export function importedArticles(ports: ImportedArticlePorts): ImportedArticles {
  const keeping = {
    store: ports.store,
    fetchImage: async () => ({ ok: false as const, retryable: false, reason: 'an imported copy keeps no images' }),
    imageUrl: () => '',
    now: ports.now,
  };
  return {
    keep: async (bookmarkId, page) => {
      // Omnivore keeps the article's own markup, not a page: it is read as the body of one.
      const html = /<body[\s>]/i.test(page.html) ? page.html : `<!DOCTYPE html><html><body>${page.html}</body></html>`;
      const record = await keepArticle(keeping, bookmarkId, { html, url: page.url, truncated: false });
      // A bookmark deleted meanwhile leaves nothing behind.
      if (!(await ports.bookmarks.recordArticle(bookmarkId, record))) await ports.store.deleteArticle(bookmarkId);
    },
  };
}
