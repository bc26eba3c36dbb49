// Builds the CLI (cli/main.ts and what it imports) into a bundle with esbuild, as the functions are
// built, so `gleaner` starts without compiling TypeScript. The launcher builds on the first run and
// again whenever a file the bundle was built from has changed since (a pull, an edit, `npm ci`).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The builds' folder: `dist/` is ignored by git, so every clone builds its own. */
const CLI_BUNDLE_DIR = join(root, 'dist/cli');
/** Which build is current and the repository files it was built from, to tell when it is out of date. */
const CURRENT = join(CLI_BUNDLE_DIR, 'current.json');
/** Changes to these rebuild too: the installed packages, and how the bundle is built. */
const ALWAYS_INPUTS = ['package-lock.json', 'cli/build.mjs'];
/** Builds replaced this long ago are removed (a run that started on one may still load its chunks). */
const KEEP_REPLACED_MS = 10 * 60_000;

/** The current bundle's entry, built first when missing or older than any file it was built from. */
export async function cliBundle() {
  const current = upToDate() ?? (await build());
  return join(CLI_BUNDLE_DIR, current, 'main.mjs');
}

/** The current build's folder name, or null when there is none or a file it was built from changed. */
function upToDate() {
  try {
    const built = statSync(CURRENT).mtimeMs;
    const { build, inputs } = JSON.parse(readFileSync(CURRENT, 'utf8'));
    return inputs.every((input) => statSync(join(root, input)).mtimeMs <= built) ? build : null;
  } catch {
    return null;
  }
}

/**
 * Builds into a folder of its own, then names it current (a rename: all at once), so runs that
 * start meanwhile, or build at the same time, each load a whole bundle.
 */
async function build() {
  const { build: esbuild } = await import('esbuild');
  const name = `build-${Date.now()}-${process.pid}`;
  const { metafile } = await esbuild({
    entryPoints: { main: join(root, 'cli/main.ts') },
    outdir: join(CLI_BUNDLE_DIR, name),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // LanceDB is native (it stays an import, loaded only by the search commands' chunk).
    external: ['@lancedb/lancedb', 'apache-arrow'],
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    // Bundled CommonJS dependencies still call `require`.
    // Named apart from the bundle's own imports: fflate's ESM build imports `createRequire` too.
    banner: {
      js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'error',
  });
  const inputs = [
    ...Object.keys(metafile.inputs).filter((input) => !input.startsWith('node_modules/')),
    ...ALWAYS_INPUTS,
  ];
  mkdirSync(CLI_BUNDLE_DIR, { recursive: true });
  const staged = `${CURRENT}.${process.pid}`;
  writeFileSync(staged, JSON.stringify({ build: name, inputs }));
  renameSync(staged, CURRENT);
  for (const entry of readdirSync(CLI_BUNDLE_DIR)) {
    const path = join(CLI_BUNDLE_DIR, entry);
    if (entry.startsWith('build-') && entry !== name && Date.now() - statSync(path).mtimeMs > KEEP_REPLACED_MS)
      rmSync(path, { recursive: true, force: true });
  }
  return name;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await cliBundle();
