import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';

/** Repository root: entries are relative to it, and esbuild resolves packages from its node_modules. */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** ESM bundles have no `require`, yet bundled CommonJS dependencies (xmlbuilder2) still call it. */
const esmRequireBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * How every function is bundled; `npm run bench` and the bundle tests build with the same options.
 * - The AWS SDK goes into the bundle, tree-shaken and minified: the function runs the locked SDK,
 *   not whichever one the runtime ships, and imports it in about half the time.
 * - Code a function loads with `import()` (the HTML parser, the fetcher, the feed renderers, the
 *   X-Ray SDK) is split into chunks of its own: a cold start then neither runs nor even parses it.
 *   (The CDK's NodejsFunction writes one file, hence this bundling of our own.)
 * - The source maps ship beside the files but are not loaded at start: `--enable-source-maps`
 *   parses them on every cold start (+40% init for the save function on the bench), so map stack
 *   traces offline instead.
 */
export const functionBundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  splitting: true,
  entryNames: 'index',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  banner: { js: esmRequireBanner },
  logLevel: 'silent',
} as const satisfies BuildOptions;

/** The bundle's entry file (`entryNames`, `outExtension`) and its export: Lambda's `Handler`. */
export const BUNDLE_ENTRY_FILE = 'index.mjs';
export const FUNCTION_HANDLER = 'index.handler';

/** Bundles `entry` (relative to the repository root) into `outdir`, as the stack deploys it; returns what went where. */
export function bundleFunction(entry: string, outdir: string): Metafile {
  return buildSync({
    ...functionBundleOptions,
    entryPoints: [path.resolve(projectRoot, entry)],
    outdir,
    metafile: true,
  }).metafile;
}

/** Local bundling with esbuild in this process: no Docker, the same esbuild as the lock file's. */
class FunctionBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    bundleFunction(this.entry, outputDir);
    return true;
  }
}

/**
 * A function's code asset: its bundle, fingerprinted by the bundle's own bytes (like
 * NodejsFunction), so an edit elsewhere in the repository deploys no function anew.
 */
export function functionCode(entry: string): Code {
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      local: new FunctionBundling(entry),
      // Never used: local bundling always runs (or throws esbuild's error). The CDK requires an image.
      image: DockerImage.fromRegistry('dummy'),
    },
  });
}
