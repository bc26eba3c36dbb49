/**
 * Where a search's time goes at 10,000 notes for one user among 19,900 (`npx tsx bench/search-profile.ts`):
 * builds the bench's index once into BENCH_SEARCH_DIR (kept for reruns), then times each step of
 * keyword and hybrid queries. Figures for docs/search.md; `npm run bench` has the headline rows.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LanceSearchIndex } from '../functions/adapters/search/lance-index';
import { testEmbedder } from '../functions/core/search/embedder';
import { indexNotes } from '../functions/core/search/indexer';
import { parseQuery } from '../functions/core/search/query';
import { searchNotes } from '../functions/core/search/search';
import { bestSnippet } from '../functions/core/search/snippet';
import { tokenize } from '../functions/core/search/tokens';
import { syntheticNotes, uuidOf } from './search';

const folder = process.env.BENCH_SEARCH_DIR ?? join(tmpdir(), 'gleaner-search-profile');
const embedder = testEmbedder(64);
const target = uuidOf('user-0');
const mine = syntheticNotes(target, 10_000, 1);
if (!existsSync(join(folder, 'notes.lance'))) {
  mkdirSync(folder, { recursive: true });
  const index = await LanceSearchIndex.open({ uri: folder });
  const all = [
    ...mine,
    ...Array.from({ length: 99 }, (_, u) => syntheticNotes(uuidOf(`user-${u + 1}`), 100, u + 2)).flat(),
  ];
  for (let start = 0; start < all.length; start += 1000)
    await indexNotes({ index, embedder }, all.slice(start, start + 1000));
  await index.optimize();
  index.close();
}
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)]!;
const vocabulary = mine.flatMap((note) => tokenize(note.title)).filter((word) => word.length > 3);
let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = () => vocabulary[Math.floor(next() * vocabulary.length)]!;
const queries = Array.from({ length: 100 }, (_, i) => {
  const kind = i % 5;
  if (kind === 0) return `${pick()} ${pick()}`;
  if (kind === 1) return `"${pick()} ${pick()}"`;
  if (kind === 2) return `${pick().slice(0, 4)}*`;
  if (kind === 3) return `${pick()} #${mine[i]!.tags[0]}`;
  return `${pick().slice(0, -1)}x`;
});

async function time(label: string, run: (query: string) => Promise<unknown>) {
  for (const query of queries.slice(0, 10)) await run(query);
  const times: number[] = [];
  for (const query of queries) {
    const began = performance.now();
    await run(query);
    times.push(performance.now() - began);
  }
  console.log(
    `${label.padEnd(58)} p50 ${quantile(times, 0.5).toFixed(1)} ms  p95 ${quantile(times, 0.95).toFixed(1)} ms`,
  );
}

for (const readConsistencySeconds of [0, 5]) {
  const index = await LanceSearchIndex.open({ uri: folder, readConsistencySeconds });
  const ports = { index, embedder };
  const at = `(read consistency ${readConsistencySeconds} s)`;
  await time(`searchNotes keyword ${at}`, (q) => searchNotes(ports, target, q, { mode: 'keyword' }));
  await time(`searchNotes hybrid ${at}`, (q) => searchNotes(ports, target, q, { mode: 'hybrid' }));
  await time(`  index.keyword only ${at}`, async (q) => {
    const parsed = parseQuery(q);
    if (parsed.ok) await index.keyword(target, parsed.query, 21);
  });
  await time(`  index.coverage ${at}`, () => index.coverage(target, embedder.model));
  await time(`  embed + index.semantic ${at}`, async (q) => {
    const parsed = parseQuery(q);
    const [vector] = await embedder.embed([q], 'query');
    if (parsed.ok) await index.semantic(target, parsed.query, vector!, embedder.model, 21);
  });
  const hits = new Map<string, Awaited<ReturnType<typeof index.keyword>>>();
  for (const q of queries) {
    const parsed = parseQuery(q);
    if (parsed.ok) hits.set(q, await index.keyword(target, parsed.query, 21));
  }
  await time(`  snippets of 20 hits`, async (q) => {
    const parsed = parseQuery(q);
    if (parsed.ok) for (const hit of hits.get(q)!.slice(0, 20)) bestSnippet(hit.note, parsed.query);
  });
  index.close();
}
