/**
 * The Embedder port: text in, vectors out. Adapters: Bedrock Titan Text Embeddings V2 on AWS, an
 * OpenAI-compatible endpoint the operator names, and the deterministic test embedder below.
 */
import { createHash } from 'node:crypto';
import { tokenize } from './tokens';

export interface Embedder {
  /** Names the vector space: vectors of different models are never compared. */
  readonly model: string;
  /**
   * Cosine similarities below which a note is too far in meaning to be shown (measured per model on
   * the judged set: docs/search.md): `alone` when the query's words match no note (a paraphrase),
   * `besideMatches` after keyword matches, where a neighbour must be much nearer to add anything.
   * None: every neighbour is shown.
   */
  readonly floor?: { readonly alone: number; readonly besideMatches: number };
  /** One vector per text, in order. `purpose` lets models that embed queries differently do so. */
  embed(texts: readonly string[], purpose: 'document' | 'query'): Promise<number[][]>;
}

/** Thrown by an adapter when the embedding service cannot answer now (the caller falls back or retries). */
export class EmbedderUnavailableError extends Error {}

/**
 * A small deterministic embedder for tests and the bench: each word (and each word's 4-letter
 * prefix, so related forms land close) is hashed onto a few dimensions with a sign; the sum is
 * normalised. Texts sharing words point the same way, so "semantic" ranking is predictable.
 */
export function testEmbedder(dimensions = 64, model = `test-hash-${dimensions}`): Embedder {
  return {
    model,
    async embed(texts) {
      return texts.map((text) => hashVector(text, dimensions));
    },
  };
}

function hashVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of tokenize(text)) {
    for (const feature of [word, `~${word.slice(0, 4)}`]) {
      const hash = createHash('sha256').update(feature).digest();
      for (let i = 0; i < 3; i++) {
        const index = hash.readUInt16BE(i * 2) % dimensions;
        vector[index]! += hash[8 + i]! & 1 ? 1 : -1;
      }
    }
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}
