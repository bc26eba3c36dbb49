import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundledPackages, packagesEvaluatedAtInit } from '../../bench/bundle-graph';
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
  GetFeedAtom: ['xmlbuilder2', 'markdown-it'],
  GetJsonFeed: ['markdown-it'],
};

const entryOf = (id: string) => [...routes, ...workers].find((definition) => definition.id === id)!.entry;

describe('function bundles load what a cold start does not need on first use', () => {
  it.each(Object.entries(lazilyLoaded))('%s', async (id, packages) => {
    const entry = entryOf(id);
    const { metafile } = await build({ ...lambdaEsbuildOptions, entryPoints: [entry], outfile: 'index.mjs', write: false, metafile: true });
    const atInit = packagesEvaluatedAtInit(metafile, entry);
    for (const name of packages) {
      expect(bundledPackages(metafile), `${name} is in the ${id} bundle`).toContain(name);
      expect(atInit, `${name} is evaluated at ${id} init`).not.toContain(name);
    }
    // The walk does reach the packages the handler needs at init (the logger, the SDK).
    expect(atInit).toContain('@aws-lambda-powertools/logger');
  });
});
