import { describeTextQuote, findTextQuote } from '../article/anchor';
import type { Principal } from '../identity/principal';
import { type Highlight, type HighlightAnchor, mergeTags, type Note } from '../model';
import { extractHashtags } from '../save/hashtags';
import { rewriteHighlight } from '../save/highlights';
import { appendHighlight, NoteBody, NoteTooLargeError, sameHighlight } from '../save/note-body';
import type { NoteChange } from '../save/save-bookmark';
import { isoTimestamp, storableText } from '../text/text';
import type { HighlightCreate, HighlightResource } from './api';
import { highlightResource, InvalidInputError, keptPage, liveNote, NotFoundError, type OwnerPorts } from './library';

/**
 * A note's highlights one by one: adding one while reading (anchored in the kept page by a
 * TextQuoteSelector), changing one's comment, taking one out. Each is one write of the note's body
 * and the highlight's record together (the save path's optimistic update), so nothing is ever half
 * written; another user's note or highlight is a 404, as an unknown one.
 */

/**
 * Adds a highlight as a save with a selection adds one (a quote in the body, its record, tags from
 * the comment's hashtags). When the page is kept, the quote with its prefix and suffix must be in
 * its text, and the highlight keeps the text around it there; before, it is added unanchored.
 */
export async function addHighlight(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  input: HighlightCreate,
): Promise<HighlightResource> {
  const note = liveNote(principal, await ports.notes.getNote(noteId));
  const quote = storableText(input.quote)?.trim();
  if (!quote)
    throw new InvalidInputError([{ loc: ['body', 'quote'], msg: 'A highlight needs a quote', type: 'missing' }]);
  const anchor = await anchorIn(ports, note, { exact: quote, prefix: input.prefix ?? '', suffix: input.suffix ?? '' });
  const comment = storableText(input.comment)?.trim() || null;
  const now = isoTimestamp(ports.now());
  const highlight: Highlight = {
    id: ports.newId(),
    noteId: note.id,
    userId: note.userId,
    quote,
    comment,
    saved: now,
    ...(anchor ? { anchor } : {}),
  };
  await changeNote(ports, note, now, { loc: ['body', 'quote'], done: 'added' }, (current) => ({
    body: appendHighlight(current.body, { selection: quote, comment }),
    tags: mergeTags(current.tags, extractHashtags(comment)),
    lastHighlight: quote,
    highlight,
  }));
  return highlightResource(highlight);
}

/** Gives one highlight a new comment (null: none), in its record and in the note's body together. */
export async function editHighlight(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  highlightId: string,
  edit: { readonly comment: string | null },
): Promise<HighlightResource> {
  const { note, highlights, target } = await ownedHighlight(ports, principal, noteId, highlightId);
  const comment = storableText(edit.comment)?.trim() || null;
  const edited: Highlight = { ...target, comment };
  if (comment === target.comment) return highlightResource(target);
  await changeNote(
    ports,
    note,
    isoTimestamp(ports.now()),
    { loc: ['body', 'comment'], done: 'changed' },
    (current) => ({
      body: rewriteHighlight(current.body, highlights, target.id, { comment }) ?? current.body,
      tags: mergeTags(current.tags, extractHashtags(comment)),
      lastHighlight: current.lastHighlight,
      highlight: edited,
    }),
  );
  return highlightResource(edited);
}

/** Takes one highlight out of the note: its quote and comment from the body, its record, together. */
export async function deleteHighlight(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  highlightId: string,
): Promise<void> {
  const { note, highlights, target } = await ownedHighlight(ports, principal, noteId, highlightId);
  await changeNote(
    ports,
    note,
    isoTimestamp(ports.now()),
    { loc: ['path', 'highlight_id'], done: 'deleted' },
    (current) => ({
      body: rewriteHighlight(current.body, highlights, target.id, null) ?? current.body,
      tags: current.tags,
      // A later save of the same selection is a new highlight, not a retry of this one.
      lastHighlight: sameHighlight(current.lastHighlight, target.quote) ? null : current.lastHighlight,
      removedHighlight: target,
    }),
  );
}

async function ownedHighlight(ports: OwnerPorts, principal: Principal, noteId: string, highlightId: string) {
  const note = liveNote(principal, await ports.notes.getNote(noteId));
  const highlights = await ports.notes.noteHighlights(note.id);
  const target = highlights.find((highlight) => highlight.id === highlightId);
  if (!target) throw new NotFoundError('No such highlight');
  return { note, highlights, target };
}

/**
 * Where the quote stands in the note's kept page: the text around it there. Refused (422) when the
 * page is kept and does not hold it; null before the page is kept, unless the client said.
 */
async function anchorIn(
  ports: OwnerPorts,
  note: Note,
  selector: { exact: string; prefix: string; suffix: string },
): Promise<HighlightAnchor | null> {
  const text = (await keptPage(ports, note)).content?.text;
  if (!text) return selector.prefix || selector.suffix ? { prefix: selector.prefix, suffix: selector.suffix } : null;
  const range = findTextQuote(text, selector);
  if (!range)
    throw new InvalidInputError([
      {
        loc: ['body', 'quote'],
        msg: 'The kept page does not hold this quote with this prefix and suffix',
        type: 'selector_mismatch',
      },
    ]);
  const { prefix, suffix } = describeTextQuote(text, range);
  return { prefix, suffix };
}

/**
 * The note's body, tags and highlight records changed in one write; a note gone meanwhile is a 404.
 * A change that would make the note too big to store (NoteBody) is the 422 `note_too_large` at
 * `refused.loc`, and nothing is written.
 */
async function changeNote(
  ports: OwnerPorts,
  note: Note,
  now: string,
  refused: { loc: (string | number)[]; done: string },
  change: (note: Note) => NoteChange,
): Promise<void> {
  const tooLarge = new InvalidInputError([
    {
      loc: refused.loc,
      msg: `The note has reached its maximum size; nothing was ${refused.done}`,
      type: 'note_too_large',
    },
  ]);
  // A note without a bookmark (an imported book's highlights) takes the same changes.
  const changed = await ports.notes
    .updateNote(
      note.id,
      (current) => {
        const next = change(current);
        if (NoteBody.of(current).refusal({ ...current, ...next })) throw tooLarge;
        return next;
      },
      now,
    )
    .catch((error: unknown) => {
      if (error instanceof NoteTooLargeError) throw tooLarge;
      throw error;
    });
  if (!changed) throw new NotFoundError('No such note');
}
