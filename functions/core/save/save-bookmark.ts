import type { BookmarkSaveResult } from '../contract/contract';
import type { EnrichmentRequest } from '../enrich/enrichment';
import {
  type AccessToken,
  type Bookmark,
  bookmarkResource,
  type Highlight,
  type HighlightAnchor,
  mergeTags,
  type Note,
} from '../model';
import { isoTimestamp } from '../text/text';
import { extractHashtags } from './hashtags';
import { highlightsOfBody } from './highlights';
import {
  derivedId,
  IDEMPOTENCY_LEASE_SECONDS,
  IDEMPOTENCY_TTL_SECONDS,
  type IdempotencyClaim,
  type IdempotencyRecord,
  requestFingerprint,
  type StoredAnswer,
} from './idempotency';
import {
  appendedBytes,
  appendedText,
  appendHighlight,
  bodyBytes,
  buildNoteBody,
  endsWithParagraph,
  type HighlightInput,
  NoteBody,
  NoteTooLargeError,
  sameHighlight,
  withAppended,
} from './note-body';
import type { SaveRequest } from './save-request';
import { normalizeUrl } from './url';

/**
 * The save use case: a new page becomes a bookmark backed by exactly one note; a page already in the
 * workspace (same normalised URL) gets the selection appended to its note instead.
 */

/** A saved page: its bookmark and its note. */
interface SavedNote {
  readonly bookmark: Bookmark;
  readonly note: Note;
}

/** The request's Idempotency-Key is held by another request (in flight or answered), or an earlier one. */
export type KeyTaken = { readonly kind: 'key-taken'; readonly stored: StoredAnswer<AnswerOutcome> };

export type CreateBookmarkOutcome =
  | { readonly kind: 'created' }
  /** The URL is saved already: its bookmark and note as read right after (null when deleted meanwhile). */
  | {
      readonly kind: 'exists';
      readonly bookmarkId: string;
      readonly noteId: string;
      readonly saved: SavedNote | null;
    }
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number }
  | KeyTaken;

export type NoteUpdate =
  /** `change`: what was written, as `change()` returned it for the note it was applied to. */
  | { readonly kind: 'updated'; readonly bookmark: Bookmark; readonly note: Note; readonly change: NoteChange }
  | { readonly kind: 'unchanged'; readonly bookmark: Bookmark; readonly note: Note }
  | KeyTaken;

/**
 * A highlight (and/or comment) added at the end of a note by one write that concurrent appends to the
 * same note never conflict on: no read-modify-write, so a hot note costs one write per highlight.
 */
export interface NoteAppend {
  /** Names the append: the same append again (a retried request) adds nothing. */
  readonly id: string;
  /** Other names the same append may already have (an unkeyed save's in the previous retry window). */
  readonly sameAs: readonly string[];
  /** What it adds below the body's last paragraph (see appendedText). */
  readonly text: string;
  /** The bytes it adds to the body, which must stay within NOTE_BODY_MAX_BYTES. */
  readonly bytes: number;
  /** The selection as sent (the note's last highlight from now on), or null to keep the note's. */
  readonly selection: string | null;
  /** Appends nothing when this is still the note's last highlight (a client's retry that raced the first try). */
  readonly unlessLastHighlight: string | null;
  readonly highlight: Highlight | null;
  readonly updated: string;
  /** The note's owner and its body's size as read (for notes stored before their size was kept). */
  readonly userId: string;
  readonly bytesBefore: number;
}

export type NoteAppendOutcome =
  | { readonly kind: 'appended' | 'unchanged'; readonly bookmark: Bookmark }
  | { readonly kind: 'note-full' }
  /** The bookmark or its note was deleted meanwhile. */
  | { readonly kind: 'missing' }
  | KeyTaken;

export type RestoreOutcome =
  | { readonly kind: 'restored'; readonly note: Note }
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number }
  | { readonly kind: 'missing' };

/** What the save needs before it can write, read in one round trip: the token and the host's known favicon. */
export interface SaveContext {
  readonly token: AccessToken | null;
  readonly siteIcon: string | null;
}

export interface SaveContextReader {
  loadSaveContext(tokenHash: string, host: string | null): Promise<SaveContext>;
  /** Records that the token authenticated a request now, unless a use within the hour is on record. */
  recordTokenUse(tokenHash: string, at: Date, agentFamily: string | null): Promise<void>;
}

/** The bookmark or note a change was meant for no longer exists (deleted meanwhile). */
export class NoteNotFoundError extends Error {}

/** A save's answer kept for its Idempotency-Key. */
export type SaveRecord = IdempotencyRecord<AnswerOutcome>;

export interface NoteChange {
  readonly body: string;
  readonly tags: readonly string[];
  readonly lastHighlight: string | null;
  /** A highlight the change adds (or rewrites: the same id and time), recorded in the same transaction. */
  readonly highlight?: Highlight | null;
  /** A highlight the change takes out, its record deleted in the same transaction. */
  readonly removedHighlight?: Highlight | null;
}

export interface BookmarkStore {
  /**
   * Writes bookmark, note and the (user, normalised URL) marker atomically, within the user's note
   * cap. When the URL is saved already (`exists`), it reads that page's bookmark and note before it
   * answers, so the save goes on to append without another call. With `enrichment`, the bookmark is also recorded as awaiting it (the outbox the sweeper
   * re-publishes from, should the publish after the commit fail). With `record`, the answer is
   * kept for its Idempotency-Key in the same transaction, completing the request's claim, unless
   * the claim is no longer the request's (`key-taken`: its lease passed and another request took it).
   */
  createBookmark(
    bookmark: Bookmark,
    note: Note,
    enrichment: EnrichmentRequest | null,
    record: SaveRecord | null,
    highlights?: readonly Highlight[],
  ): Promise<CreateBookmarkOutcome>;
  /**
   * Applies `change` to the bookmark's note without losing concurrent updates (re-reading and
   * re-applying on conflict); `change` returns null when there is nothing to write. With `record`,
   * the answer for the bookmark as updated is kept in the same transaction as the change: it is
   * given the change being written, so it answers for that change (never for an earlier attempt's).
   */
  updateSavedNote(
    ref: { bookmarkId: string; noteId: string },
    change: (note: Note) => NoteChange | null,
    updated: string,
    record: ((bookmark: Bookmark, change: NoteChange) => SaveRecord) | null,
  ): Promise<NoteUpdate>;
  /**
   * Takes a note out of the Trash, back under the note cap: refused (`note-limit`) when the cap is
   * reached; `missing` when no such note is in the Trash.
   */
  restoreNote(noteId: string): Promise<RestoreOutcome>;
  /**
   * Deletes the bookmark, saved-URL marker and highlights a note deleted by its TTL left behind (the
   * stream's consumer deletes them too, a little later); nothing while the note exists.
   */
  removeLeftovers(note: Pick<Note, 'id' | 'userId' | 'bookmarkId'>): Promise<void>;
  /** The bookmark and its note, read consistently; null when either is gone. */
  getSavedNote(ref: { bookmarkId: string; noteId: string }): Promise<SavedNote | null>;
  /**
   * Appends to the bookmark's note in one conditional write, then records the highlight (with
   * `record`, keeping the answer with it), and moves the bookmark's and the tag entries' update times.
   * Those follow the append and repeat it harmlessly, so a rerun of the same append (same id) completes them.
   */
  appendToNote(
    bookmark: Bookmark,
    append: NoteAppend,
    record: ((bookmark: Bookmark) => SaveRecord) | null,
  ): Promise<NoteAppendOutcome>;
  /** Claims the key for a request about to run, unless another request holds it (returns what holds it). */
  claimKey(claim: IdempotencyClaim): Promise<KeyTaken | null>;
  /** Keeps the answer of a save that wrote nothing, unless its claim was taken meanwhile (returns what holds the key). */
  keepAnswer(record: SaveRecord): Promise<KeyTaken | null>;
  /** Gives up an unanswered claim (unless taken over meanwhile), so a retry of a failed request runs anew. */
  releaseClaim(claim: IdempotencyClaim): Promise<void>;
}

export type CreateNoteOutcome =
  | { readonly kind: 'created' }
  /** A note has its id already (a rerun, or an earlier import of the same book): nothing was written. */
  | { readonly kind: 'exists'; readonly note: Note }
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number };

/**
 * Notes without a bookmark (an import's book of highlights, a text note): created under the note cap
 * exactly as a save's note is, and changed as a saved note is.
 */
export interface NoteStore {
  /**
   * Writes the note (no bookmark, no saved-URL marker), its tag and reading-state entries and its
   * highlights' records in one transaction with the note count, conditional on no note having its
   * id: named after what it holds, the same note imported again (or a rerun) writes nothing twice.
   */
  createNote(note: Note, highlights: readonly Highlight[]): Promise<CreateNoteOutcome>;
  /**
   * `updateSavedNote` for a note found by its id alone: the bookmark's update time moves with it
   * when it has one. Null when the note is gone or in the Trash.
   */
  updateNote(
    noteId: string,
    change: (note: Note) => NoteChange | null,
    updated: string,
  ): Promise<{ readonly kind: 'updated' | 'unchanged'; readonly note: Note } | null>;
}

export interface EnrichmentPublisher {
  publish(request: EnrichmentRequest): Promise<void>;
}

export interface SaveBookmarkPorts {
  readonly store: BookmarkStore;
  readonly enrichment: EnrichmentPublisher;
  readonly newId: () => string;
  readonly now: () => Date;
  readonly logger: { warn(message: string, extra: Record<string, unknown>): void };
}

/** The outcomes a save answers with; every one of them is kept for replay under an Idempotency-Key. */
export type AnswerOutcome =
  | {
      readonly kind: 'saved';
      readonly bookmark: Bookmark;
      readonly isNewBookmark: boolean;
      readonly selectionAppended: boolean;
    }
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number }
  | { readonly kind: 'note-full' };

export type SaveOutcome =
  | AnswerOutcome
  /** A repeat of an earlier request with the same key and body: its answer, and nothing done. */
  | { readonly kind: 'replayed'; readonly first: AnswerOutcome }
  /** The key was used before with another body. */
  | { readonly kind: 'key-reused' }
  /** A request with the same key and body is still running: nothing done, retry shortly. */
  | { readonly kind: 'in-flight' };

interface SaveInput {
  readonly userId: string;
  readonly request: SaveRequest;
  readonly siteIcon: string | null;
  readonly idempotency: { scope: string; key: string } | null;
  /**
   * A link from a bookmark file or an export (`gleaner import`): its tags, when it was first
   * bookmarked and, from an export, its note as it was (body and last update).
   */
  readonly imported?: {
    readonly tags: readonly string[];
    readonly added: Date | null;
    /** When the page last changed (a bookmark file's LAST_MODIFIED, its latest highlight); null: now. */
    readonly updated?: Date | null;
    /** The owner's own comment on the note (Raindrop's note, a JSON export's comment). */
    readonly comment?: string | null;
    /** Highlights from another service's export, in the order of their times. */
    readonly highlights?: readonly { quote: string; comment: string | null; saved: Date }[];
    readonly note?: {
      readonly body: string;
      readonly updated: Date | null;
      /** Its highlights with their times, in order; null to read them from the body, at the note's time. */
      readonly highlights:
        | readonly { quote: string; comment: string | null; saved: Date; anchor?: HighlightAnchor }[]
        | null;
    } | null;
    /** Its reading state where it comes from (a new note only: a page already saved keeps its own). */
    readonly archived?: Date | null;
    readonly starred?: Date | null;
  };
}

export async function saveBookmark(ports: SaveBookmarkPorts, input: SaveInput): Promise<SaveOutcome> {
  const clock = ports.now();
  const keyed = keyedSave(input.idempotency, input.request, clock, ports.newId);
  if (!keyed) return save(ports, input, clock, null);
  // Claimed before any work, so a repeat meanwhile finds it in flight instead of running too.
  const holder = await ports.store.claimKey(keyed.claim);
  if (holder) return repeated(holder, keyed);
  try {
    return await save(ports, input, clock, keyed);
  } catch (error) {
    await releaseClaim(ports, keyed.claim);
    throw error;
  }
}

async function save(
  ports: SaveBookmarkPorts,
  input: SaveInput,
  clock: Date,
  keyed: KeyedSave | null,
): Promise<SaveOutcome> {
  const { request, userId, siteIcon, imported } = input;
  const now = isoTimestamp(clock);
  const created = imported?.added ? isoTimestamp(imported.added) : now;
  const restored = imported?.note ?? null;
  const importedHighlights = imported?.highlights ?? [];
  const updated = isoTimestamp(restored?.updated ?? imported?.updated ?? clock);
  const tags = mergeTags(imported?.tags ?? [], extractHashtags(request.comment));
  const url = request.url.href;
  const title = request.title?.trim() || url;
  const bookmark: Bookmark = {
    id: ports.newId(),
    userId,
    noteId: ports.newId(),
    title,
    url,
    normalizedUrl: normalizeUrl(request.url),
    icon: siteIcon,
    created,
    updated,
  };
  const note: Note = {
    id: bookmark.noteId,
    userId,
    bookmarkId: bookmark.id,
    url,
    title,
    body:
      restored?.body ??
      importedHighlights.reduce(
        (body, found) => appendHighlight(body, { selection: found.quote, comment: found.comment }),
        buildNoteBody({ ...request, title, url }),
      ),
    ...(imported?.comment ? { comment: imported.comment } : {}),
    tags,
    lastHighlight: request.selection,
    created,
    updated,
    version: 1,
    archivedAt: imported?.archived ? isoTimestamp(imported.archived) : null,
    starredAt: imported?.starred ? isoTimestamp(imported.starred) : null,
  };

  // A restored note is as it was exported: its description, if it had one, is in its body.
  const scrapeDescription = request.description === null && restored === null;
  const fetchIcon = siteIcon === null;
  // Every new bookmark is enriched: the page worker keeps its page (docs/articles.md) even when the
  // description and the site's icon are known.
  const enrichment: EnrichmentRequest = { bookmarkId: bookmark.id, scrapeDescription, fetchIcon };

  const saved: AnswerOutcome = { kind: 'saved', bookmark, isNewBookmark: true, selectionAppended: false };
  // Its highlights as records too: the selection, or those of a restored note's body.
  const highlights = restored
    ? (restored.highlights ?? highlightsOfBody(restored.body)).map((found) =>
        newHighlight(ports, note, found, 'saved' in found ? isoTimestamp(found.saved) : updated),
      )
    : importedHighlights.length
      ? importedHighlights.map((found) => newHighlight(ports, note, found, isoTimestamp(found.saved)))
      : request.selection
        ? [newHighlight(ports, note, { quote: request.selection, comment: request.comment }, now)]
        : [];
  const outcome = await ports.store.createBookmark(bookmark, note, enrichment, keyed?.of(saved) ?? null, highlights);
  switch (outcome.kind) {
    case 'key-taken':
      return repeated(outcome, keyed!);
    case 'note-limit':
      return keepAnswer(ports, keyed, { kind: 'note-limit', used: outcome.used, limit: outcome.limit });
    case 'created':
      if (enrichment) await requestEnrichment(ports, enrichment);
      return saved;
    case 'exists': {
      const appended = await appendToSavedNote(
        { ports, ref: outcome, request, addedTags: tags, now, keyed },
        outcome.saved,
      );
      if (appended) return appended;
      // Deleted meanwhile: the URL is new again once what the note left is gone (a note deleted by its
      // TTL leaves its marker for the stream's consumer), so the save starts over and creates it.
      await ports.store.removeLeftovers({ id: outcome.noteId, userId, bookmarkId: outcome.bookmarkId });
      return save(ports, input, clock, keyed);
    }
  }
}

/** A save under an Idempotency-Key: the request's claim on the key, and the record of an answer to it. */
interface KeyedSave {
  readonly claim: IdempotencyClaim;
  /** The id of what the request appends, the same on every run of it: a rerun after a crash appends nothing twice. */
  readonly appendId: string;
  of(outcome: AnswerOutcome): SaveRecord;
}

function keyedSave(
  idempotency: SaveInput['idempotency'],
  request: SaveRequest,
  now: Date,
  newId: () => string,
): KeyedSave | null {
  if (!idempotency) return null;
  const createdAt = Math.floor(now.getTime() / 1000);
  const claim: IdempotencyClaim = {
    ...idempotency,
    fingerprint: requestFingerprint([
      request.url.href,
      request.title,
      request.selection,
      request.comment,
      request.description,
      request.append,
    ]),
    claimId: newId(),
    createdAt,
    leaseUntil: createdAt + IDEMPOTENCY_LEASE_SECONDS,
    expiresAt: createdAt + IDEMPOTENCY_TTL_SECONDS,
  };
  return {
    claim,
    appendId: derivedId(`${claim.scope}\n${claim.key}\n${claim.fingerprint}`),
    of: (outcome) => ({ ...claim, outcome }),
  };
}

/** A key held by another request: the same request gets its answer (or, still running, a 409), another request a refusal. */
function repeated(taken: KeyTaken, save: KeyedSave): SaveOutcome {
  const { fingerprint, outcome } = taken.stored;
  if (fingerprint !== save.claim.fingerprint) return { kind: 'key-reused' };
  return outcome ? { kind: 'replayed', first: outcome } : { kind: 'in-flight' };
}

/** Best effort: should the release fail too, the claim's lease frees the key. */
async function releaseClaim(ports: SaveBookmarkPorts, claim: IdempotencyClaim): Promise<void> {
  try {
    await ports.store.releaseClaim(claim);
  } catch (error) {
    ports.logger.warn('Releasing the Idempotency-Key claim of a failed save failed; its lease will free the key', {
      error: String(error),
    });
  }
}

/** An answer that wrote nothing is kept with a write of its own (only on those rarer paths). */
async function keepAnswer(
  ports: SaveBookmarkPorts,
  keyed: KeyedSave | null,
  outcome: AnswerOutcome,
): Promise<SaveOutcome> {
  if (!keyed) return outcome;
  const taken = await ports.store.keepAnswer(keyed.of(outcome));
  return taken ? repeated(taken, keyed) : outcome;
}

/** A save of a page already saved: what it changes in that page's note. */
interface SaveToSavedPage {
  readonly ports: SaveBookmarkPorts;
  readonly ref: { bookmarkId: string; noteId: string };
  readonly request: SaveRequest;
  readonly addedTags: readonly string[];
  readonly now: string;
  readonly keyed: KeyedSave | null;
}

/**
 * Adds the request's highlight to the note already saved for its page (`saved`, as the store read it
 * when it found the URL taken), or nothing for a client's retry; a note in the Trash is restored
 * first. Null when the note was deleted for good since its URL was found taken: the caller saves it anew.
 */
async function appendToSavedNote(save: SaveToSavedPage, saved: SavedNote | null): Promise<SaveOutcome | null> {
  const { ports, ref, request, addedTags, now, keyed } = save;
  if (!saved) return null;
  // The page's note is in the Trash: saving the page again takes it back (under the note cap), then adds to it.
  if (saved.note.trashedAt) {
    const restored = await ports.store.restoreNote(ref.noteId);
    if (restored.kind === 'note-limit')
      return keepAnswer(ports, keyed, { kind: 'note-limit', used: restored.used, limit: restored.limit });
    return appendToSavedNote(save, await ports.store.getSavedNote(ref));
  }
  const { bookmark, note } = saved;
  // New tags change the note's tag entries too: those saves rewrite the note (see retagSavedNote).
  if (mergeTags(note.tags, addedTags).length !== note.tags.length) return retagSavedNote(save);
  const highlight = newText(request, note);
  const text = appendedText(highlight);
  if (!text) return keepAnswer(ports, keyed, appendedOutcome(bookmark, false));
  const lastHighlight = highlight.selection ?? note.lastHighlight;
  if (NoteBody.of(note).refusal({ ...note, body: withAppended(note.body, [text]), lastHighlight }, 1))
    return keepAnswer(ports, keyed, { kind: 'note-full' });
  // Unkeyed, a save names its append by what it adds and when: sent again after a 503 (which may have
  // come after the append was written) or a lost answer, it is the same append, stored once.
  const retryIds = keyed || request.append ? null : retryWindowIds(note.id, highlight, now);
  const id = keyed?.appendId ?? retryIds?.[0] ?? ports.newId();
  const selectionAppended = highlight.selection !== null;
  const outcome = await ports.store.appendToNote(
    bookmark,
    {
      id,
      sameAs: retryIds?.slice(1) ?? [],
      text,
      bytes: appendedBytes(note.body, text),
      bytesBefore: bodyBytes(note.body),
      userId: note.userId,
      selection: highlight.selection,
      unlessLastHighlight: request.append ? null : request.selection,
      highlight: highlight.selection
        ? newHighlight(ports, note, { quote: highlight.selection, comment: highlight.comment }, now, id)
        : null,
      updated: now,
    },
    keyed && ((updated) => keyed.of(appendedOutcome(updated, selectionAppended))),
  );
  switch (outcome.kind) {
    case 'missing':
      return null;
    case 'key-taken':
      return repeated(outcome, keyed!);
    case 'appended':
      return appendedOutcome(outcome.bookmark, selectionAppended);
    case 'unchanged':
      return keepAnswer(ports, keyed, appendedOutcome(outcome.bookmark, false));
    case 'note-full':
      return keepAnswer(ports, keyed, { kind: 'note-full' });
  }
}

/**
 * How long the same highlight (selection and comment), sent again without an Idempotency-Key to the
 * same note, is taken as a client's retry rather than a new highlight: at least this, at most twice.
 * Retries after a 503's Retry-After (1 or 5 s) fall well within it. `append: true` opts out.
 */
const RETRY_WINDOW_SECONDS = 10 * 60;

/** The append's id in the current retry window, then in the previous one. */
function retryWindowIds(noteId: string, highlight: HighlightInput, now: string): [string, string] {
  const digest = requestFingerprint([noteId, highlight.selection, highlight.comment]);
  const window = Math.floor(Date.parse(now) / 1000 / RETRY_WINDOW_SECONDS);
  return [derivedId(`retry\n${digest}\n${window}`), derivedId(`retry\n${digest}\n${window - 1}`)];
}

const appendedOutcome = (bookmark: Bookmark, selectionAppended: boolean): AnswerOutcome => ({
  kind: 'saved',
  bookmark,
  isNewBookmark: false,
  selectionAppended,
});

/**
 * What a save adds to a note: its selection and comment, or nothing when, without `append: true`,
 * the note's last highlight (or, without a selection, its last comment) is sent again: a client's retry.
 */
function newText(request: SaveRequest, note: Note): HighlightInput {
  const retry =
    !request.append &&
    (request.selection
      ? sameHighlight(note.lastHighlight, request.selection)
      : endsWithParagraph(note.body, request.comment));
  return retry ? { selection: null, comment: null } : request;
}

/**
 * What a save that adds tags writes to `note`: its highlight and tags on the body rewritten whole,
 * `full` when that body would pass its limit, null when it adds nothing. A pure function of the note,
 * so the outcome is read from the note the store last applied it to, never from flags.
 */
function retagChange(save: SaveToSavedPage, note: Note): NoteChange | 'full' | null {
  const { ports, request, addedTags, now } = save;
  const highlight = newText(request, note);
  const tags = mergeTags(note.tags, addedTags);
  if (!highlight.selection && !highlight.comment && tags.length === note.tags.length) return null;
  const body = appendHighlight(note.body, highlight);
  const lastHighlight = highlight.selection ?? note.lastHighlight;
  if (NoteBody.of(note).refusal({ ...note, body, tags, lastHighlight })) return 'full';
  const recorded = highlight.selection
    ? newHighlight(ports, note, { quote: highlight.selection, comment: highlight.comment }, now)
    : null;
  return { body, tags, lastHighlight, highlight: recorded };
}

/** Whether a change appends the save's selection (it records its highlight exactly then). */
const appendsSelection = (change: NoteChange) => !!change.highlight;

/** A save that adds tags: the note rewritten whole, re-read and re-applied should another change win the race. */
async function retagSavedNote(save: SaveToSavedPage): Promise<SaveOutcome | null> {
  const { ports, ref, now, keyed } = save;
  const update = await ports.store
    .updateSavedNote(
      ref,
      (note) => {
        const change = retagChange(save, note);
        return change === 'full' ? null : change;
      },
      now,
      keyed && ((bookmark, change) => keyed.of(appendedOutcome(bookmark, appendsSelection(change)))),
    )
    .catch((error: unknown) => {
      if (error instanceof NoteNotFoundError) return null;
      // DynamoDB refused the note's size after all (an append raced this save): nothing was written.
      if (error instanceof NoteTooLargeError) return 'full' as const;
      throw error;
    });
  if (!update) return null;
  if (update === 'full') return keepAnswer(ports, keyed, { kind: 'note-full' });
  switch (update.kind) {
    case 'key-taken':
      return repeated(update, keyed!);
    case 'updated':
      return appendedOutcome(update.bookmark, appendsSelection(update.change));
    case 'unchanged':
      return keepAnswer(
        ports,
        keyed,
        retagChange(save, update.note) === 'full' ? { kind: 'note-full' } : appendedOutcome(update.bookmark, false),
      );
  }
}

/**
 * Publishing happens after the commit, so a failure cannot undo the save; the bookmark stays in the
 * enrichment outbox and the sweeper publishes it again.
 */
async function requestEnrichment(ports: SaveBookmarkPorts, request: EnrichmentRequest): Promise<void> {
  try {
    await ports.enrichment.publish(request);
  } catch (error) {
    ports.logger.warn('Publishing the enrichment request failed; the sweeper will retry it', {
      error: String(error),
      bookmarkId: request.bookmarkId,
    });
  }
}

/** The contract's BookmarkSaveResult. */
export function saveResult(outcome: Extract<AnswerOutcome, { kind: 'saved' }>): BookmarkSaveResult {
  return {
    bookmark: bookmarkResource(outcome.bookmark),
    note_id: outcome.bookmark.noteId,
    is_new_bookmark: outcome.isNewBookmark,
    selection_appended: outcome.selectionAppended,
  };
}

/** The record of a highlight of `note`: its quote and comment as saved (trimmed, an empty comment none), saved at `saved`. */
function newHighlight(
  ports: Pick<SaveBookmarkPorts, 'newId'>,
  note: Pick<Note, 'id' | 'userId'>,
  found: { quote: string; comment: string | null; anchor?: HighlightAnchor | undefined },
  saved: string,
  id = ports.newId(),
): Highlight {
  return {
    id,
    noteId: note.id,
    userId: note.userId,
    quote: found.quote.trim(),
    comment: found.comment?.trim() || null,
    saved,
    ...(found.anchor ? { anchor: found.anchor } : {}),
  };
}
