import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { filesLoadedAtInit, packagesIn } from '../../bench/bundle-graph';
import { routes } from '../../functions/platform/routes';
import { scheduledTasks, workers } from '../../functions/platform/workers';
import { BUNDLE_ENTRY_FILE, bundleFunction } from '../../lib/function-bundle';

/**
 * Libraries a cold start does not need are imported with `import()` where they are used, and the
 * bundling (as the stack deploys it) splits them into chunks of their own: the files a cold start
 * loads do not carry them. A static import anywhere on the way would put them back on every cold start.
 */
const functions = [...routes, ...workers, ...scheduledTasks];
/** X-Ray tracing, loaded on the first sampled invocation (functions/platform/tracing.ts), by every function with an AWS client. */
const tracing = ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core'];
const lazilyLoaded: Record<string, readonly string[]> = {
  ...Object.fromEntries(
    functions.filter((definition) => definition.access.length).map((definition) => [definition.id, tracing]),
  ),
  PageWorker: [...tracing, 'undici', 'linkedom', '@mozilla/readability', 'sanitize-html'],
  FaviconWorker: [...tracing, 'undici'],
  // The import worker reads the uploaded file (every format's reader) with the first chunk that needs it.
  ImportWorker: [...tracing, 'linkedom', 'htmlparser2', 'sanitize-html', 'csv-parse', 'fflate'],
  GetPublishedFeedRss: [...tracing, 'xmlbuilder2', 'markdown-it'],
  GetFeedAtom: [...tracing, 'xmlbuilder2', 'markdown-it'],
  GetJsonFeed: [...tracing, 'markdown-it'],
  // The per-user API and the library pages render RSS for the private review feed only, schedule a
  // review (ts-fsrs) only when one is rated, and the pages sanitize a kept article only to show it.
  GetMyAccount: [...tracing, 'xmlbuilder2', 'markdown-it', 'ts-fsrs'],
  WebLibrary: [...tracing, 'xmlbuilder2', 'markdown-it', 'ts-fsrs', 'sanitize-html'],
  // The account pages load WebAuthn for the passkey routes and SES for a mail only.
  WebSignIn: [...tracing, '@simplewebauthn/server', '@aws-sdk/client-sesv2'],
  // The authorization server, its Koa and its key secret come with the first request.
  OAuthPost: [...tracing, 'oidc-provider', 'koa', 'serverless-http', '@aws-sdk/client-secrets-manager'],
  // The MCP server (the SDK, its ajv, the tools and their schemas) comes with the first admitted request.
  Mcp: [...tracing, '@modelcontextprotocol/sdk', 'ajv', 'zod-to-json-schema'],
};
/** S3 (article and upload stores) is loaded on first use (functions/adapters/s3.ts) by every function that keeps files. */
for (const id of ['GetMyAccount', 'WebLibrary', 'Mcp', 'GetIcon', 'PageWorker', 'ImportWorker'])
  lazilyLoaded[id] = [...lazilyLoaded[id]!, '@aws-sdk/client-s3'];

/**
 * Gleaner's own modules a cold start does not need, per function: the zod schemas of the APIs (built
 * by the first request that reads a body or answers in their shape) and the MCP server. Each must be
 * in the bundle, in a chunk of its own.
 */
const schemas = {
  owner: 'functions/core/owner/api.ts',
  review: 'functions/core/review/api.ts',
  import: 'functions/core/import/api.ts',
  contract: 'functions/core/contract/contract.ts',
  save: 'functions/core/save/save-request.ts',
};
const lazyModules: Record<string, readonly string[]> = {
  GetMyAccount: [schemas.owner, schemas.review, schemas.import, schemas.save],
  WebLibrary: [schemas.owner, schemas.save],
  Mcp: [schemas.owner, schemas.review, schemas.contract, schemas.save, 'functions/mcp/server.ts'],
  // The article extraction and the export readers (see lazilyLoaded) with their Gleaner modules.
  PageWorker: ['functions/core/article/extract.ts', 'functions/core/article/sanitize.ts'],
  ImportWorker: [
    'functions/core/import/detect.ts',
    'functions/core/workspace/netscape-bookmarks.ts',
    'functions/core/article/extract.ts',
    'functions/core/article/sanitize.ts',
  ],
};

const outdir = mkdtempSync(path.join(tmpdir(), 'gleaner-bundles-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const bundles = new Map<string, { metafile: Metafile; entryFile: string }>();
/** Routes with the same entry share one function (up to 21 of them): its bundle is built once. */
function bundleOf(id: string) {
  const { entry } = functions.find((definition) => definition.id === id)!;
  let bundle = bundles.get(entry);
  if (!bundle) {
    const dir = path.join(outdir, String(bundles.size));
    bundle = { metafile: bundleFunction(entry, dir), entryFile: path.join(dir, BUNDLE_ENTRY_FILE) };
    bundles.set(entry, bundle);
  }
  return bundle;
}

describe('function bundles leave what a cold start does not need to chunks loaded on first use', () => {
  it.each(Object.entries(lazilyLoaded))('%s', (id, packages) => {
    const { metafile, entryFile } = bundleOf(id);
    const atInit = packagesIn(metafile, filesLoadedAtInit(metafile, entryFile));
    for (const name of packages) {
      expect(packagesIn(metafile), `${name} is in the ${id} bundle`).toContain(name);
      expect(atInit, `${name} is in a file ${id} loads at init`).not.toContain(name);
    }
    // The walk does reach the packages the handler needs at init (the logger, the SDK).
    expect(atInit).toContain('@aws-lambda-powertools/logger');
    expect(atInit).toContain('@aws-sdk/client-dynamodb');
  });
});

describe('function bundles leave Gleaner’s own modules a cold start does not need to chunks loaded on first use', () => {
  it.each(Object.entries(lazyModules))('%s', (id, modules) => {
    const { metafile, entryFile } = bundleOf(id);
    const inputsOf = (files: Iterable<string>) =>
      new Set([...files].flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {})));
    const atInit = inputsOf(filesLoadedAtInit(metafile, entryFile));
    const bundled = inputsOf(Object.keys(metafile.outputs));
    for (const module of modules) {
      expect(bundled, `${module} is in the ${id} bundle`).toContain(module);
      expect(atInit, `${module} is in a file ${id} loads at init`).not.toContain(module);
    }
  });
});

describe('the import worker’s bundle', () => {
  it('carries fflate’s Node build, which imports createRequire as the require banner does, and loads in a fresh Node', () => {
    const { metafile, entryFile } = bundleOf('ImportWorker');
    expect(Object.keys(metafile.inputs)).toContain('node_modules/fflate/esm/index.mjs');
    execFileSync(process.execPath, [
      '--input-type=module',
      '-e',
      `const module = await import(${JSON.stringify(pathToFileURL(entryFile).href)}); if (typeof module.handler !== 'function') process.exit(3);`,
    ]);
    // The per-user API starts imports without reading them: no parser, no fflate.
    expect(packagesIn(bundleOf('GetMyAccount').metafile)).not.toContain('fflate');
  });
});
