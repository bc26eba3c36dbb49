import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Embedder } from '../../core/search/embedder';
import { applyNoteChanges, embedDocuments, type IndexerPorts, indexNotes } from '../../core/search/indexer';
import type { Environment } from '../../platform/env';
import { setting, settings } from '../../platform/settings';
import {
  bedrockTitanEmbedder,
  builtInEmbedder,
  createBedrockClient,
  openAiCompatibleEmbedder,
  transformersEmbedder,
} from './embedders';
import { allNotes, notePages, readNotes } from './note-changes';
import { ShardedSearchIndex } from './sharded-index';

/**
 * The embedder the environment names: Bedrock when a deployment chose it, an OpenAI-compatible
 * endpoint, local model files through @huggingface/transformers, or else the built-in model that
 * ships in the package (the default, offline); none (keyword only) when GLEANER_EMBEDDINGS=off.
 */
export function embedderFromEnv(env: Environment): Embedder | null {
  const model = setting(env, settings.embeddingsModel);
  if (setting(env, settings.bedrockEmbeddings)) return bedrockTitanEmbedder(createBedrockClient(), model);
  const modelPath = setting(env, settings.embeddingsModelPath);
  if (modelPath) return transformersEmbedder(modelPath);
  const url = setting(env, settings.embeddingsUrl);
  if (url) {
    if (!model) throw new Error(`${settings.embeddingsUrl.name} is set but ${settings.embeddingsModel.name} is not`);
    return openAiCompatibleEmbedder({ url, model, apiKey: setting(env, settings.embeddingsApiKey) });
  }
  return setting(env, settings.embeddings) === 'off' ? null : builtInEmbedder();
}

export function openIndexFromEnv(env: Environment): Promise<ShardedSearchIndex> {
  return ShardedSearchIndex.open({
    uri: setting(env, settings.searchIndexUri),
    shards: setting(env, settings.searchShards),
    foldRows: setting(env, settings.searchFoldRows),
  });
}

/** Table items a rebuild's scan reads between two saves of its progress (where a resumed rebuild starts). */
const REBUILD_PAGE_ITEMS = 1000;

/** What a rebuild reads (the table, the kept articles' text) and writes. */
interface IndexSources extends Pick<IndexerPorts, 'articleText'> {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly index: ShardedSearchIndex;
  readonly embedder: Embedder | null;
  /** Table items between two saves of a rebuild's progress. @default 1,000 */
  readonly pageItems?: number;
}

/** What `gleaner reindex` rebuilds: one user, one shard, every shard, or every shard into M shards. */
export type RebuildScope =
  | { userId: string }
  | { shard?: number; resume?: boolean }
  | { shards: number; resume?: boolean };

/**
 * Rebuilds the index from the table, the source of truth, without taking search away: one user's
 * notes are written again in place (forward-only merges) and the notes the table no longer has are
 * tombstoned; a shard, every shard, or a new number of shards is built beside the live layout (the
 * stream's writes go to both meanwhile) and switched to in one change of the layout. A build saves
 * how far its scan got after every page, so `resume` continues one whose process stopped. Returns how
 * many notes it indexed.
 */
export async function rebuildIndex(ports: IndexSources, scope: RebuildScope = {}): Promise<number> {
  if ('userId' in scope) {
    let indexed = 0;
    const kept = new Set<string>();
    for await (const notes of allNotes(ports.doc, ports.tableName, scope.userId)) {
      // Notes in the Trash are left out, as the indexer hides them.
      const live = notes.filter((note) => !note.trashedAt);
      await indexNotes(ports, live);
      for (const note of live) kept.add(note.id);
      indexed += live.length;
    }
    // A note saved while the scan ran is in the index but not in `kept`: only what the table (read
    // consistently) no longer has is tombstoned.
    const unseen = (await ports.index.liveNoteIds(scope.userId)).filter((noteId) => !kept.has(noteId));
    const present = new Set((await readNotes(ports.doc, ports.tableName, unseen)).map((note) => note.id));
    const gone = unseen.filter((noteId) => !present.has(noteId));
    await ports.index.tombstone(gone.map((noteId) => ({ noteId, userId: scope.userId })));
    return indexed;
  }
  const request =
    'shards' in scope
      ? { kind: 'reshard' as const, shards: scope.shards }
      : { kind: 'reindex' as const, ...(scope.shard === undefined ? {} : { shard: scope.shard }) };
  let build = await ports.index.startBuild(request, { resume: scope.resume ?? false });
  const writer = { ...ports, index: ports.index.builder(build) };
  let indexed = 0;
  const pages = notePages(
    ports.doc,
    ports.tableName,
    undefined,
    build.cursor ?? undefined,
    ports.pageItems ?? REBUILD_PAGE_ITEMS,
  );
  for await (const { notes, next } of pages) {
    const mine = notes.filter((note) => !note.trashedAt && ports.index.builds(build, note.userId));
    await indexNotes(writer, mine);
    indexed += mine.length;
    build = await ports.index.saveProgress(build, next ?? null, build.scanned + notes.length);
  }
  await ports.index.finishBuild(build);
  return indexed;
}

/**
 * The indexer's scheduled step: re-embeds, shard by shard from each one's watermark, what the
 * configured model lacks for half the time to the deadline, then folds the shards whose unfolded rows
 * reached the index's `foldRows`, the most first, until the deadline (the rest at the next run).
 * Returns how many notes it re-embedded, and how many shards it folded and left with rows waiting.
 */
export async function scheduledIndexStep(
  index: ShardedSearchIndex,
  embedder: Embedder | null,
  deadline: number,
): Promise<{ reembedded: number; folded: number; left: number }> {
  let reembedded = 0;
  const foldFrom = Date.now() + (deadline - Date.now()) / 2;
  while (embedder && Date.now() < foldFrom) {
    const step = await index.reembedStep(embedder.model, async (documents) => ({
      model: embedder.model,
      rows: await embedDocuments(embedder, documents),
    }));
    if (step === null) break;
    reembedded += step;
  }
  return { reembedded, ...(await index.optimize({ deadline, minRows: index.foldRows })) };
}

/**
 * Indexes the notes the index lacks or holds at an older version (notes saved before search existed,
 * or while the indexer was down), leaving the rest as they are: `gleaner migrate`'s search step.
 */
export async function backfillIndex(ports: IndexSources): Promise<{ indexed: number }> {
  let indexed = 0;
  const indexer = { ...ports, readNotes: (ids: readonly string[]) => readNotes(ports.doc, ports.tableName, ids) };
  for await (const notes of allNotes(ports.doc, ports.tableName)) {
    const outcome = await applyNoteChanges(
      indexer,
      notes.map((note) => ({ kind: 'saved' as const, note })),
    );
    indexed += outcome.indexed;
  }
  await ports.index.optimize();
  return { indexed };
}
