import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UploadStore } from '../core/import/job';
import { type S3, s3OnFirstUse } from './s3';

/**
 * Where import files are uploaded: `s3://bucket` (AWS: a private bucket; the browser PUTs the file to
 * a presigned URL, so a large export passes neither API Gateway's 10 MB nor Lambda's payload limit)
 * or a folder (the local stack, which plays S3's part at LOCAL_UPLOAD_PATH).
 */
export function createUploadStore(
  uri: string,
  publicBaseUrl: string,
  options: { endpoint?: string } = {},
): UploadStore {
  const bucket = /^s3:\/\/([^/]+)\/?$/.exec(uri)?.[1];
  return bucket ? new S3UploadStore(s3OnFirstUse(options), bucket) : new FolderUploadStore(uri, publicBaseUrl);
}

/** The local stack's stand-in for the bucket's presigned PUT. */
export const LOCAL_UPLOAD_PATH = '/local-uploads/';

/** The keys the service makes (`imports/<user>/<import>/<random>`): nothing else becomes a path. */
const UPLOAD_KEY = /^imports(\/[0-9a-f-]{36}){3}$/;

function checked(key: string): string {
  if (!UPLOAD_KEY.test(key)) throw new Error(`not an upload key: ${key}`);
  return key;
}

class S3UploadStore implements UploadStore {
  constructor(
    private readonly s3: () => Promise<S3>,
    private readonly bucket: string,
  ) {}

  async uploadTarget(key: string, seconds: number) {
    const [{ sdk, client }, { getSignedUrl }] = await Promise.all([this.s3(), import('@aws-sdk/s3-request-presigner')]);
    const command = new sdk.PutObjectCommand({ Bucket: this.bucket, Key: checked(key) });
    return { url: await getSignedUrl(client, command, { expiresIn: seconds }), headers: {} };
  }

  async read(key: string): Promise<Uint8Array | null> {
    const { sdk, client } = await this.s3();
    try {
      const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: checked(key) }));
      return (await object.Body?.transformToByteArray()) ?? null;
    } catch (error) {
      if (error instanceof sdk.NoSuchKey) return null;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    const { sdk, client } = await this.s3();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: checked(key) }));
  }
}

class FolderUploadStore implements UploadStore {
  constructor(
    private readonly folder: string,
    private readonly publicBaseUrl: string,
  ) {}

  async uploadTarget(key: string) {
    return { url: `${this.publicBaseUrl.replace(/\/+$/, '')}${LOCAL_UPLOAD_PATH}${checked(key)}`, headers: {} };
  }

  async read(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(join(this.folder, checked(key))));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(join(this.folder, checked(key)), { force: true });
  }
}

/** The local stack's side of a presigned PUT: the body kept under the folder as its key; false for a key the service never makes. */
export async function receiveLocalUpload(folder: string, key: string, body: Readable): Promise<boolean> {
  if (!UPLOAD_KEY.test(key)) return false;
  const path = join(folder, key);
  await mkdir(dirname(path), { recursive: true });
  await pipeline(body, createWriteStream(path));
  return true;
}
