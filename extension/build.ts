import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { zipSync } from 'fflate';

/**
 * `npm run build:extension`: bundles the extension with esbuild into dist/extension/ (load it
 * unpacked) and zips it beside it (dist/gleaner-extension-<version>.zip, for the stores).
 * One build serves Chromium (background.service_worker) and Firefox (background.scripts).
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'extension');

export interface ExtensionBuildOptions {
  readonly outDir?: string;
  /**
   * For automated tests only: the service worker built from this entry instead of `src/background.ts`
   * (one that hands the tests a handle on the worker), with these compile-time constants. The
   * published build exposes nothing on `globalThis`.
   */
  readonly testWorker?: { readonly entry: string; readonly define?: Record<string, string> };
  /**
   * Host permissions granted at install, for automated tests only: they stand in for `activeTab`,
   * which only a person's click on the toolbar button grants. The published build has none.
   */
  readonly testHostPermissions?: readonly string[];
  readonly zip?: boolean;
}

export async function buildExtension(
  options: ExtensionBuildOptions = {},
): Promise<{ outDir: string; zipPath: string | null }> {
  const outDir = options.outDir ?? join(root, 'dist', 'extension');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  await build({
    entryPoints: {
      background: options.testWorker?.entry ?? join(source, 'src', 'background.ts'),
      popup: join(source, 'src', 'popup.ts'),
      options: join(source, 'src', 'options.ts'),
    },
    define: options.testWorker?.define,
    outdir: outDir,
    bundle: true,
    format: 'iife',
    target: ['chrome120', 'firefox140'],
    minify: false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const file of ['popup.html', 'options.html', 'pages.css', 'popup.css', 'options.css'])
    cpSync(join(source, 'src', file), join(outDir, file));
  cpSync(join(source, 'icons'), join(outDir, 'icons'), { recursive: true, filter: (path) => !path.endsWith('.svg') });

  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const manifest = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  manifest.version = version;
  if (options.testHostPermissions?.length) manifest.host_permissions = [...options.testHostPermissions];
  writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  if (options.zip === false) return { outDir, zipPath: null };
  const zipPath = join(dirname(outDir), `gleaner-extension-${version}.zip`);
  writeFileSync(zipPath, zipSync(filesUnder(outDir), { level: 9, mtime: new Date('2026-01-01T00:00:00Z') }));
  return { outDir, zipPath };
}

function filesUnder(dir: string): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  const walk = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path).split('\\').join('/')] = readFileSync(path);
    }
  };
  walk(dir);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { outDir, zipPath } = await buildExtension();
  console.log(`Built the extension: ${relative(root, outDir)}/ (load unpacked) and ${relative(root, zipPath!)}`);
}
