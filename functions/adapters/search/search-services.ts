import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { embeddingText } from '../../core/search/document';
import type { Embedder } from '../../core/search/embedder';
import { applyNoteChanges, type IndexerPorts, indexNotes } from '../../core/search/indexer';
import type { Environment } from '../../platform/env';
import { setting, settings } from '../../platform/settings';
import {
  bedrockTitanEmbedder,
  builtInEmbedder,
  createBedrockClient,
  openAiCompatibleEmbedder,
  transformersEmbedder,
} from './embedders';
import { LanceSearchIndex } from './lance-index';
import { allNotes, readNotes } from './note-changes';

/** Notes embedded per re-embedding step (the background catch-up after a model change). */
const REEMBED_BATCH = 50;

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

export function openIndexFromEnv(env: Environment): Promise<LanceSearchIndex> {
  return LanceSearchIndex.open({ uri: setting(env, settings.searchIndexUri) });
}

/** What a rebuild reads (the table, the kept articles' text) and writes. */
interface IndexSources extends Pick<IndexerPorts, 'articleText'> {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly index: LanceSearchIndex;
  readonly embedder: Embedder | null;
}

/**
 * Rebuilds the index (or one user's part of it) from the table, the source of truth. Notes deleted
 * while it runs are tombstoned by the indexer as usual. Returns how many notes it indexed.
 */
export async function rebuildIndex(ports: IndexSources, userId?: string): Promise<number> {
  await ports.index.clear(userId);
  let indexed = 0;
  for await (const notes of allNotes(ports.doc, ports.tableName, userId)) {
    // Notes in the Trash are left out, as the indexer hides them.
    const live = notes.filter((note) => !note.trashedAt);
    await indexNotes(ports, live);
    indexed += live.length;
  }
  await ports.index.optimize();
  return indexed;
}

/** Embeds a batch of notes whose vectors in the embedder's model are missing or older; how many it did. */
async function reembedStep(index: LanceSearchIndex, embedder: Embedder): Promise<number> {
  const documents = await index.missingVectors(embedder.model, REEMBED_BATCH);
  if (documents.length === 0) return 0;
  const vectors = await embedder.embed(documents.map(embeddingText), 'document');
  await index.upsert(documents, {
    model: embedder.model,
    rows: documents.map((document, i) => ({ noteId: document.note_id, vector: vectors[i]! })),
  });
  return documents.length;
}

/**
 * The indexer's scheduled step: re-embeds what the configured model lacks until the deadline, then
 * folds what was written since the last fold into the main table's indexes. Returns how many notes it
 * re-embedded.
 */
export async function scheduledIndexStep(
  index: LanceSearchIndex,
  embedder: Embedder | null,
  deadline: number,
): Promise<number> {
  let reembedded = 0;
  while (embedder && Date.now() < deadline) {
    const step = await reembedStep(index, embedder);
    if (step === 0) break;
    reembedded += step;
  }
  if (reembedded > 0 || (await index.unfoldedRows()) > 0) await index.optimize();
  return reembedded;
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
