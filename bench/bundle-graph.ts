import type { Metafile } from 'esbuild';

/** Reading an esbuild metafile: which packages a bundle carries, and which of them its init evaluates. */

const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];

/** Packages with code in the bundle. */
export function bundledPackages(metafile: Metafile): Set<string> {
  return new Set(Object.keys(metafile.inputs).flatMap((input) => packageOf(input) ?? []));
}

/** Packages reached from `entry` through static imports and requires only: what runs at init. */
export function packagesEvaluatedAtInit(metafile: Metafile, entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  for (let input = pending.pop(); input !== undefined; input = pending.pop()) {
    if (reached.has(input)) continue;
    reached.add(input);
    for (const { path, kind, external } of metafile.inputs[input]?.imports ?? []) {
      if (!external && kind !== 'dynamic-import') pending.push(path);
    }
  }
  return new Set([...reached].flatMap((input) => packageOf(input) ?? []));
}

/** Packages the bundle carries but loads only through `import()`, on first use. */
export function packagesLoadedOnFirstUse(metafile: Metafile, entry: string): string[] {
  const atInit = packagesEvaluatedAtInit(metafile, entry);
  return [...bundledPackages(metafile)].filter((name) => !atInit.has(name)).sort();
}
