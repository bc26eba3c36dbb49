import path from 'node:path';
import type { Metafile } from 'esbuild';

/** Reading an esbuild metafile of a split bundle: which files a cold start loads, and what they carry. */

type Output = [file: string, output: Metafile['outputs'][string]];

const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
const scripts = (metafile: Metafile): Output[] =>
  Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.mjs'));

/** The entry file and the chunks it imports statically, transitively: what Node parses and runs at init. */
export function filesLoadedAtInit(metafile: Metafile, entryFile: string): Set<string> {
  const entry = scripts(metafile).find(([file]) => path.resolve(file) === path.resolve(entryFile))?.[0];
  if (!entry) throw new Error(`${entryFile} is not an output of this build`);
  const loaded = new Set<string>();
  for (const pending = [entry]; pending.length; ) {
    const file = pending.pop()!;
    if (loaded.has(file)) continue;
    loaded.add(file);
    for (const { path: imported, kind, external } of metafile.outputs[file]!.imports) {
      if (kind === 'import-statement' && !external) pending.push(imported);
    }
  }
  return loaded;
}

/** Bytes of the files loaded at init, and of the chunks left for `import()` on first use. */
export function initAndFirstUseBytes(metafile: Metafile, entryFile: string): { atInit: number; onFirstUse: number } {
  const atInit = filesLoadedAtInit(metafile, entryFile);
  const sum = (outputs: Output[]) => outputs.reduce((total, [, { bytes }]) => total + bytes, 0);
  return {
    atInit: sum(scripts(metafile).filter(([file]) => atInit.has(file))),
    onFirstUse: sum(scripts(metafile).filter(([file]) => !atInit.has(file))),
  };
}

/** Packages with code in the given output files (every script of the bundle by default). */
export function packagesIn(
  metafile: Metafile,
  files: Iterable<string> = scripts(metafile).map(([file]) => file),
): Set<string> {
  return new Set(
    [...files].flatMap((file) =>
      Object.keys(metafile.outputs[file]?.inputs ?? {}).flatMap((input) => packageOf(input) ?? []),
    ),
  );
}
