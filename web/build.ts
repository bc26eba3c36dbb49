import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The web app's static assets: the files of web/static as they are, and each web/src/*.ts bundled by
 * esbuild into one minified ES module (`passkey.ts` → `passkey.js`). The local stack serves them from
 * memory under /assets/; the CDK stack deploys the same set to the web bucket behind CloudFront,
 * under /assets/<version>/ (`webAssetsVersion`), which the pages the deployed functions render name.
 */

export interface WebAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

const root = fileURLToPath(new URL('.', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
};

export function buildWebAssets(): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  for (const file of readdirSync(join(root, 'static'))) {
    assets.set(file, { body: readFileSync(join(root, 'static', file)), contentType: contentTypeOf(file) });
  }
  const sources = readdirSync(join(root, 'src')).filter((file) => file.endsWith('.ts'));
  const result = buildSync({
    entryPoints: sources.map((file) => join(root, 'src', file)),
    outdir: '/',
    bundle: true,
    format: 'esm',
    target: ['es2022'],
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  for (const output of result.outputFiles) {
    const file = output.path.slice(output.path.lastIndexOf('/') + 1);
    assets.set(file, { body: Buffer.from(output.contents), contentType: contentTypeOf(file) });
  }
  return assets;
}

/** A hash of the whole set (names and bytes): any change to any file gives every file a new address. */
export function webAssetsVersion(assets: ReadonlyMap<string, WebAsset>): string {
  const hash = createHash('sha256');
  for (const [file, { body, contentType }] of [...assets].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(`${file}\0${contentType}\0${body.length}\0`).update(body);
  return hash.digest('hex').slice(0, 16);
}

function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
}
