import * as z from 'zod/mini';
import type { Highlight } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/** A highlight's item, in its note's partition (in the order saved) and in its user's highlights index. */
export function highlightItem(highlight: Highlight) {
  return {
    ...keys.highlight(highlight.noteId, highlight.saved, highlight.id),
    ...keys.userHighlightsIndex(highlight.userId, highlight.id),
    type: 'Highlight',
    ...highlight,
  };
}

const decodeHighlight = itemCodec('Highlight', () =>
  z.object({
    id: z.string(),
    noteId: z.string(),
    userId: z.string(),
    quote: z.string(),
    comment: z.nullish(z.string()),
    saved: z.string(),
    anchor: z.nullish(z.object({ prefix: z.string(), suffix: z.string() })),
  }),
);

/** A highlight item as the domain's highlight; MalformedItemError when it is not one. */
export function readHighlight(item: Record<string, unknown>): Highlight {
  const { anchor, ...stored } = decodeHighlight(item);
  return { ...stored, comment: stored.comment ?? null, ...(anchor ? { anchor } : {}) };
}
