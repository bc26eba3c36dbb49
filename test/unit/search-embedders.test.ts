import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILT_IN_MODEL,
  bedrockTitanEmbedder,
  builtInEmbedder,
  openAiCompatibleEmbedder,
  TITAN_V2_DIMENSIONS,
  TITAN_V2_MODEL_ID,
  TRANSFORMERS_PACKAGE,
  transformersEmbedder,
} from '../../functions/adapters/search/embedders';
import { embedderFromEnv } from '../../functions/adapters/search/search-services';
import { EmbedderUnavailableError } from '../../functions/core/search/embedder';

/** A loopback stand-in for an OpenAI-compatible embeddings endpoint, recording what it was sent. */
let server: Server;
let url: string;
const received: { headers: IncomingMessage['headers']; body: { model: string; input: string[] } }[] = [];
let answerStatus = 200;

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text);
      received.push({ headers: request.headers, body });
      response.writeHead(answerStatus, { 'content-type': 'application/json' });
      // Answered out of order, as the API allows: `index` says which input each embedding is for.
      const data = body.input.map((input: string, index: number) => ({
        object: 'embedding',
        index,
        embedding: [input.length, index],
      }));
      response.end(
        JSON.stringify({ object: 'list', data: data.reverse(), model: body.model, usage: { prompt_tokens: 3 } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the OpenAI-compatible embedder', () => {
  it('posts {model, input} with the bearer key and reads the embeddings back in input order', async () => {
    const embedder = openAiCompatibleEmbedder({ url, model: 'nomic-embed-text', apiKey: 'sk-test' });
    expect(await embedder.embed(['one', 'three'], 'document')).toEqual([
      [3, 0],
      [5, 1],
    ]);
    expect(received.at(-1)).toMatchObject({
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: { model: 'nomic-embed-text', input: ['one', 'three'] },
    });
    expect(embedder.model).toBe('openai-compatible:nomic-embed-text');
  });

  it('reports an endpoint that fails or is unreachable as unavailable', async () => {
    answerStatus = 503;
    await expect(openAiCompatibleEmbedder({ url, model: 'm' }).embed(['x'], 'query')).rejects.toThrow(
      EmbedderUnavailableError,
    );
    answerStatus = 200;
    await expect(
      openAiCompatibleEmbedder({ url: 'http://127.0.0.1:9/v1/embeddings', model: 'm' }).embed(['x'], 'query'),
    ).rejects.toThrow(EmbedderUnavailableError);
  });
});

describe('the Bedrock Titan V2 embedder', () => {
  it('invokes Titan Text Embeddings V2 for 512 normalised dimensions and reads its embedding', async () => {
    const bedrock = mockClient(BedrockRuntimeClient);
    const vector = Array.from({ length: TITAN_V2_DIMENSIONS }, (_, i) => i / 1000);
    bedrock.on(InvokeModelCommand).resolves({
      body: new TextEncoder().encode(JSON.stringify({ embedding: vector, inputTextTokenCount: 2 })) as never,
      contentType: 'application/json',
    });
    const embedder = bedrockTitanEmbedder(new BedrockRuntimeClient({ region: 'eu-west-1' }));
    expect(await embedder.embed(['glacier', 'moraine'], 'document')).toEqual([vector, vector]);
    const calls = bedrock.commandCalls(InvokeModelCommand);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.args[0].input).toMatchObject({
      modelId: TITAN_V2_MODEL_ID,
      contentType: 'application/json',
      accept: 'application/json',
    });
    expect(JSON.parse(calls[0]!.args[0].input.body as string)).toEqual({
      inputText: 'glacier',
      dimensions: 512,
      normalize: true,
    });
    expect(embedder.model).toBe(`bedrock:${TITAN_V2_MODEL_ID}:512`);

    bedrock.on(InvokeModelCommand).resolves({ body: new TextEncoder().encode('{"embedding":[1,2]}') as never });
    await expect(embedder.embed(['x'], 'query')).rejects.toThrow(EmbedderUnavailableError);
    bedrock.restore();
  });
});

/** Whether the optional local-model package is installed here (it is not by default: no model can be downloaded). */
function transformersInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(TRANSFORMERS_PACKAGE);
    return true;
  } catch {
    return false;
  }
}

describe('the @huggingface/transformers embedder (local model files)', () => {
  it('asks a feature-extraction pipeline of the folder for mean-pooled, normalised vectors, one per text', async () => {
    const loaded: string[] = [];
    const calls: { texts: string[]; options: object }[] = [];
    const embedder = transformersEmbedder('/models/all-MiniLM-L6-v2/', async (path) => {
      loaded.push(path);
      return async (texts, options) => {
        calls.push({ texts, options });
        return { tolist: () => texts.map((_, i) => [i, 0.5]) };
      };
    });
    expect(embedder.model).toBe('transformers:all-MiniLM-L6-v2');
    expect(await embedder.embed(['first', 'x'.repeat(30_000)], 'document')).toEqual([
      [0, 0.5],
      [1, 0.5],
    ]);
    await embedder.embed(['again'], 'query');
    expect(loaded).toEqual(['/models/all-MiniLM-L6-v2/']);
    expect(calls[0]!.options).toEqual({ pooling: 'mean', normalize: true });
    expect(calls[0]!.texts[1]!.length).toBe(20_000);
  });

  it('is unavailable (never silently keyword-as-semantic) when the pipeline cannot load or answers short', async () => {
    const failing = transformersEmbedder('/models/missing', async () => {
      throw new Error('no such file');
    });
    await expect(failing.embed(['x'], 'query')).rejects.toThrow(EmbedderUnavailableError);
    const short = transformersEmbedder('/models/short', async () => async () => ({ tolist: () => [] }));
    await expect(short.embed(['x'], 'query')).rejects.toThrow(/0 vectors for 1 texts/);
  });

  it.skipIf(transformersInstalled())(
    `names the package to install when ${TRANSFORMERS_PACKAGE} is missing (skipped where it is installed)`,
    async () => {
      const embedder = transformersEmbedder('/models/all-MiniLM-L6-v2');
      await expect(embedder.embed(['x'], 'query')).rejects.toThrow(`npm install ${TRANSFORMERS_PACKAGE}`);
    },
  );
});

describe('the built-in embedder (Universal Sentence Encoder lite, shipped in its npm package)', () => {
  it('is the default: nothing configured gives it, GLEANER_EMBEDDINGS=off gives none', () => {
    expect(embedderFromEnv({})?.model).toBe(BUILT_IN_MODEL);
    expect(embedderFromEnv({ GLEANER_EMBEDDINGS: 'builtin' })?.model).toBe(BUILT_IN_MODEL);
    expect(embedderFromEnv({ GLEANER_EMBEDDINGS: 'off' })).toBeNull();
    expect(embedderFromEnv({ BEDROCK_EMBEDDINGS: 'true', AWS_REGION: 'eu-west-1' })?.model).toMatch(/^bedrock:/);
    expect(() => embedderFromEnv({ GLEANER_EMBEDDINGS: 'remote' })).toThrow(/builtin or off/);
  });

  it('embeds offline in batches, 512 normalised dimensions a text, nearer for nearer meanings', async () => {
    const embedder = builtInEmbedder();
    const texts = Array.from({ length: 40 }, (_, i) => `note ${i} about sourdough bread`);
    const [starter, levain, taxes, ...rest] = await embedder.embed(
      ['sourdough starter feeding', 'keeping a levain alive', 'filing tax returns', ...texts],
      'document',
    );
    expect(rest).toHaveLength(40);
    expect(starter).toHaveLength(512);
    expect(Math.hypot(...starter!)).toBeCloseTo(1, 5);
    const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
    expect(cosine(starter!, levain!)).toBeGreaterThan(cosine(starter!, taxes!));
  }, 60_000);

  it('is unavailable when its model cannot load, and tries again on the next call', async () => {
    let loads = 0;
    const embedder = builtInEmbedder(async () => {
      loads += 1;
      throw new Error('no weights');
    });
    await expect(embedder.embed(['x'], 'query')).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(embedder.embed(['x'], 'query')).rejects.toThrow(/built-in model: no weights/);
    expect(loads).toBe(2);
  });
});
