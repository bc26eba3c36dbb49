import type { HighlightAnchor } from '../model';
import { highlightsOfBody } from '../save/highlights';

/** A highlight of an exported note as `gleaner import` restores it: its text and when it was saved. */
export interface RestoredHighlight {
  readonly quote: string;
  readonly comment: string | null;
  readonly saved: Date;
  /** Where it stands in the kept page (a Gleaner export's `selector`), when it was anchored. */
  readonly anchor?: HighlightAnchor;
}

/**
 * The highlights in the order they were saved, each strictly later than the one before: a time that
 * is not (a bookmark file keeps whole seconds, so two highlights of one second tie) moves to one
 * millisecond after it, since a note's highlights are kept in the order of their times.
 */
export function inSavedOrder(highlights: readonly RestoredHighlight[]): RestoredHighlight[] {
  let previous = Number.NEGATIVE_INFINITY;
  return highlights.map((highlight) => {
    const time = Math.max(highlight.saved.getTime(), previous + 1);
    previous = time;
    return { ...highlight, saved: new Date(time) };
  });
}

/**
 * A note body's highlights with the times a bookmark file lists for them, in order; null when the
 * file lists none or not one for each (an edited file), and the note's time then stands for them.
 */
export function bodyHighlightsAt(body: string, times: readonly Date[]): RestoredHighlight[] | null {
  const found = highlightsOfBody(body);
  if (times.length === 0 || times.length !== found.length) return null;
  return inSavedOrder(found.map((highlight, index) => ({ ...highlight, saved: times[index]! })));
}
