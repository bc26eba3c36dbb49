import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/platform/routes';
import { workers } from '../../functions/platform/workers';
import { lambdaEsbuildOptions } from '../../lib/app-function';

/**
 * Libraries a cold start does not need are imported with `import()` where they are used, so the
 * deployed bundle (built as the stack builds it) carries them but does not evaluate them at init.
 * A static import anywhere on the way would put them back on every cold start.
 */
const lazilyLoaded: Record<string, readonly string[]> = {
  PageWorker: ['undici', 'linkedom'],
  FaviconWorker: ['undici'],
  GetPublishedFeedRss: ['xmlbuilder2', 'markdown-it'],
};

const entryOf = (id: string) => [...routes, ...workers].find((definition) => definition.id === id)!.entry;
const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];

/** Inputs reached from the entry through static imports and requires only: what runs at init. */
function evaluatedAtInit(metafile: Metafile, entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  for (let input = pending.pop(); input !== undefined; input = pending.pop()) {
    if (reached.has(input)) continue;
    reached.add(input);
    for (const { path, kind, external } of metafile.inputs[input]?.imports ?? []) {
      if (!external && kind !== 'dynamic-import') pending.push(path);
    }
  }
  return reached;
}

describe('function bundles load what a cold start does not need on first use', () => {
  it.each(Object.entries(lazilyLoaded))('%s', async (id, packages) => {
    const entry = entryOf(id);
    const { metafile } = await build({ ...lambdaEsbuildOptions, entryPoints: [entry], outfile: 'index.mjs', write: false, metafile: true });
    const bundled = new Set(Object.keys(metafile.inputs).map(packageOf));
    const atInit = new Set([...evaluatedAtInit(metafile, entry)].map(packageOf));
    for (const name of packages) {
      expect(bundled, `${name} is in the ${id} bundle`).toContain(name);
      expect(atInit, `${name} is evaluated at ${id} init`).not.toContain(name);
    }
    // The handler itself still loads at init: the walk starts where the bundle does.
    expect(atInit.size).toBeGreaterThan(1);
  });
});
