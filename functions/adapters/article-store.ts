import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArticleStore } from '../core/article/article';
import { type ArticleContent, decodeContent, encodeContent } from '../core/article/content';
import { type S3, s3OnFirstUse } from './s3';

/**
 * The article store: `s3://bucket` (AWS: a private, encrypted bucket) or a folder (the local stack
 * keeps it in its data directory). Objects: `articles/<id>/content.json` and `articles/<id>/images/<file>`.
 */
export function createArticleStore(uri: string, options: { endpoint?: string } = {}): ArticleStore {
  const bucket = /^s3:\/\/([^/]+)\/?$/.exec(uri)?.[1];
  return bucket ? new S3ArticleStore(s3OnFirstUse(options), bucket) : new FolderArticleStore(uri);
}

const ARTICLE_ID = /^[A-Za-z0-9_-]{1,100}$/;
const FILE_NAME = /^[0-9a-f]{64}\.[a-z]{2,4}$/;

/** Ids and file names become paths and keys: only the shapes the service makes are accepted. */
function checked(articleId: string, fileName?: string): void {
  if (!ARTICLE_ID.test(articleId) || (fileName !== undefined && !FILE_NAME.test(fileName)))
    throw new Error(`not an article path: ${articleId}/${fileName ?? ''}`);
}

const contentKey = (articleId: string) => `articles/${articleId}/content.json`;
const imageKey = (articleId: string, fileName: string) => `articles/${articleId}/images/${fileName}`;

class S3ArticleStore implements ArticleStore {
  constructor(
    private readonly s3: () => Promise<S3>,
    private readonly bucket: string,
  ) {}

  async putContent(articleId: string, content: ArticleContent) {
    checked(articleId);
    const { body, hash } = encodeContent(content);
    const { sdk, client } = await this.s3();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.bucket,
        Key: contentKey(articleId),
        Body: body,
        ContentType: 'application/json',
      }),
    );
    return { hash, bytes: body.length };
  }

  async getContent(articleId: string) {
    checked(articleId);
    const object = await this.get(contentKey(articleId));
    return object ? decodeContent(object.bytes) : null;
  }

  async putImage(articleId: string, fileName: string, mediaType: string, bytes: Uint8Array) {
    checked(articleId, fileName);
    const { sdk, client } = await this.s3();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.bucket,
        Key: imageKey(articleId, fileName),
        Body: bytes,
        ContentType: mediaType,
      }),
    );
  }

  async getImage(articleId: string, fileName: string) {
    checked(articleId, fileName);
    return this.get(imageKey(articleId, fileName));
  }

  async deleteArticle(articleId: string) {
    checked(articleId);
    const { sdk, client } = await this.s3();
    let removed = 0;
    for (;;) {
      const listed = await client.send(
        new sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: `articles/${articleId}/`, MaxKeys: 1000 }),
      );
      const objects = (listed.Contents ?? []).flatMap(({ Key }) => (Key ? [{ Key }] : []));
      if (objects.length === 0) return removed;
      await client.send(
        new sdk.DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }),
      );
      removed += objects.length;
    }
  }

  private async get(key: string): Promise<{ mediaType: string; bytes: Uint8Array } | null> {
    const { sdk, client } = await this.s3();
    try {
      const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = await object.Body?.transformToByteArray();
      return bytes ? { mediaType: object.ContentType ?? 'application/octet-stream', bytes } : null;
    } catch (error) {
      if (error instanceof sdk.NoSuchKey) return null;
      throw error;
    }
  }
}

/** The local stack's article store: the same layout as files under a folder. */
class FolderArticleStore implements ArticleStore {
  constructor(private readonly folder: string) {}

  async putContent(articleId: string, content: ArticleContent) {
    checked(articleId);
    const { body, hash } = encodeContent(content);
    await this.write(contentKey(articleId), body);
    return { hash, bytes: body.length };
  }

  async getContent(articleId: string) {
    checked(articleId);
    const body = await this.read(contentKey(articleId));
    return body ? decodeContent(body) : null;
  }

  async putImage(articleId: string, fileName: string, mediaType: string, bytes: Uint8Array) {
    checked(articleId, fileName);
    await this.write(imageKey(articleId, fileName), bytes);
    await this.write(`${imageKey(articleId, fileName)}.type`, Buffer.from(mediaType));
  }

  async getImage(articleId: string, fileName: string) {
    checked(articleId, fileName);
    const [bytes, mediaType] = await Promise.all([
      this.read(imageKey(articleId, fileName)),
      this.read(`${imageKey(articleId, fileName)}.type`),
    ]);
    return bytes && mediaType ? { mediaType: mediaType.toString('utf8'), bytes } : null;
  }

  async deleteArticle(articleId: string) {
    checked(articleId);
    const folder = join(this.folder, 'articles', articleId);
    const objects = await countFiles(folder);
    await rm(folder, { recursive: true, force: true });
    return objects;
  }

  private async write(key: string, bytes: Uint8Array): Promise<void> {
    const path = join(this.folder, key);
    await mkdir(join(path, '..'), { recursive: true });
    // Written whole to a temporary name first: a reader never sees half a file.
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  private async read(key: string): Promise<Buffer | null> {
    try {
      return await readFile(join(this.folder, key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}

/** Stored objects under a folder (an image's media-type file is part of its object). */
async function countFiles(folder: string): Promise<number> {
  try {
    if (!(await stat(folder)).isDirectory()) return 0;
  } catch {
    return 0;
  }
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && !entry.name.endsWith('.type')).length;
}
