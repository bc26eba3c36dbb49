import type { ArticleRecord, ArticleStore } from '../article/article';
import { articleResource } from '../article/resource';
import type { ValidationIssue } from '../contract/validation';
import { Deadline } from '../deadline';
import { newFeedRecord, tagsToJoinFeed, updateFeedRecord } from '../feed/settings';
import type { Principal } from '../identity/principal';
import type { Backlink, ResolvedLink } from '../links/links';
import {
  type AccessToken,
  type Bookmark,
  type FeedRecord,
  type Highlight,
  MAX_TAGS_PER_NOTE,
  type Note,
  type ReadingState,
  type User,
} from '../model';
import { normalizeTag } from '../save/hashtags';
import { descriptionOf, NoteBody, NoteTooLargeError } from '../save/note-body';
import type { BookmarkStore, EnrichmentPublisher, NoteStore } from '../save/save-bookmark';
import { isoTimestamp } from '../text/text';
import { expiryAfter } from '../token/lifecycle';
import { newAccessToken } from '../workspace/accounts';
import { type ExportedNote, exportWorkspace, type HighlightReader, type WorkspaceReader } from '../workspace/export';
import type { NoteFilter, Page, PageRequest } from '../workspace/listing';
import type {
  AccountExportResource,
  AccountResource,
  ArticleResource,
  CreatedTokenResource,
  FeedCreate,
  FeedEdit,
  FeedResource,
  HighlightResource,
  NoteBulkEdit,
  NoteBulkResult,
  NoteEdit,
  NoteInFeedResource,
  NoteResource,
  NoteSummaryResource,
  TagChangeResource,
  TagListResource,
  TokenCreate,
  TokenResource,
} from './api';

/**
 * The owner's side of a workspace: what the per-user API and the signed-in pages do with notes, tags,
 * feeds, API tokens and the account. Every record read by id passes `owned` (the one ownership check),
 * so another user's id answers exactly as an unknown one.
 */

/**
 * What a note edit writes: its title, comment and tags (the body is the save path's), and its reading
 * state when given (absent: as it was).
 */
export interface NoteEditChange extends Partial<ReadingState> {
  readonly title: string;
  readonly comment: string | null;
  readonly tags: readonly string[];
}

/**
 * A rename or merge of one of the user's tags (`from` into `to`), recorded before it moves any note
 * and removed when every note and feed filter carries `to`: while it exists, the tag's notes may carry
 * either, and repeating the rename or merge carries on from where it stopped.
 */
export interface RetagJob {
  readonly userId: string;
  readonly from: string;
  readonly to: string;
  readonly mode: 'rename' | 'merge';
  readonly started: string;
  /** Notes moved so far, over every run of the job. */
  readonly notesChanged: number;
  /**
   * From when a run may take the job up without the owner repeating it (resumeRetagJobs): now, for a
   * run that stopped at its time budget; RETAG_LEASE_MS ahead while a run is under way, so a run that
   * died (a function's timeout) is taken up after that.
   */
  readonly resumeAt: string;
}

export interface LibraryStore extends WorkspaceReader, Pick<NoteStore, 'updateNote'> {
  getNote(noteId: string): Promise<Note | null>;
  noteHighlights(noteId: string): Promise<Highlight[]>;
  /**
   * Applies `change` without losing a concurrent save (re-read and re-applied on conflict); null when
   * the note is gone. A change of the reading state alone keeps the note's update time.
   */
  editNote(noteId: string, change: (note: Note) => NoteEditChange | null, updated: string): Promise<Note | null>;
  /** Moves a note of the workspace to the Trash (null: no such note there). */
  trashNote(noteId: string, trashedAt: string): Promise<Note | null>;
  restoreNote: BookmarkStore['restoreNote'];
  /** A page of the user's notes in the Trash, most recently deleted first. */
  listTrash(userId: string, page: PageRequest): Promise<Page<Note>>;
  /** Deletes a note for good, with everything it has; with `only`, only a note in the Trash (null otherwise). */
  deleteNote(noteId: string, only?: 'trashed'): Promise<Note | null>;
  /** Every tag of the user with the number of notes carrying it. */
  tagCounts(userId: string): Promise<Map<string, number>>;
  /** The ids of the user's notes carrying `tag` (at most `limit`). */
  notesTagged(userId: string, tag: string, limit?: number): Promise<string[]>;
  /** The user's unfinished renames and merges of tags. */
  retagJobs(userId: string): Promise<RetagJob[]>;
  /** Unfinished jobs of every user whose `resumeAt` is before `before` (ISO), at most `limit`, longest waiting first. */
  dueRetagJobs(before: string, limit: number): Promise<RetagJob[]>;
  /** Records a new job, unless one of the same tag exists: then that one is answered, unchanged. */
  startRetagJob(job: RetagJob): Promise<RetagJob>;
  /** Records how far a job got. */
  recordRetagJob(job: RetagJob): Promise<void>;
  /** Removes a finished job. */
  finishRetagJob(job: RetagJob): Promise<void>;
}

/** Feeds, and the highlights of notes (read as feeds of highlights read them). */
interface FeedSettingsStore extends HighlightReader {
  createFeed(feed: FeedRecord): Promise<void>;
  replaceFeed(previous: FeedRecord, next: FeedRecord): Promise<boolean>;
  deleteFeed(feedId: string): Promise<boolean>;
  getFeed(feedId: string): Promise<FeedRecord | null>;
  listFeeds(userId: string): Promise<FeedRecord[]>;
}

export interface TokenStore {
  createToken(token: AccessToken, tokenHash: string): Promise<void>;
  listTokens(userId: string): Promise<AccessToken[]>;
  findToken(tokenId: string): Promise<{ token: AccessToken } | null>;
  revokeToken(tokenId: string): Promise<boolean>;
}

/** The email login of a user (none for an operator-created user not yet invited). */
interface LoginReader {
  getLoginOfUser(userId: string): Promise<{ readonly email: string; readonly verified: boolean } | null>;
}

export interface AccountStore {
  getUser(userId: string): Promise<User | null>;
  /** Deletes the user and every row it owns. */
  deleteAccount(userId: string): Promise<void>;
}

/** The links between a user's notes (functions/adapters/dynamo/link-store.ts). */
interface LinkReader {
  /** The links `note`'s text makes, each with the user's note it resolves to now (null: none yet). */
  outgoing(note: Note): Promise<ResolvedLink[]>;
  /** The user's notes that link to `note`, with the sentence around each link. */
  backlinks(userId: string, note: Pick<Note, 'id' | 'title' | 'url'>): Promise<Backlink[]>;
}

/** The addresses a feed is read at, from the route table (the handler knows the base address). */
interface FeedLinks {
  readonly page: string;
  readonly json: string;
  readonly rss: string;
  readonly atom: string;
  readonly jsonFeed: string;
}

export interface OwnerPorts {
  readonly notes: LibraryStore;
  /** Kept articles: read for the article route and the reader, deleted with their note or account. */
  readonly articles: Pick<ArticleStore, 'getContent' | 'deleteArticle'>;
  readonly links: LinkReader;
  readonly feeds: FeedSettingsStore;
  readonly tokens: TokenStore;
  readonly accounts: AccountStore;
  readonly logins: LoginReader;
  readonly feedLinks: (feedId: string) => FeedLinks;
  readonly newId: () => string;
  readonly now: () => Date;
}

/** The record asked for does not exist, or is another user's (the same answer). */
export class NotFoundError extends Error {}
/** The change would clash with what exists (a rename onto a tag in use, a feed changed meanwhile). */
export class ConflictError extends Error {}
/** Input that parsed but does not make sense, as the contract's 422 issues. */
export class InvalidInputError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => issue.msg).join('; '));
  }
}

/** The one ownership check: a record of another user is as absent as one that never existed. */
export function owned<T extends { readonly userId: string }>(principal: Principal, record: T | null, what: string): T {
  if (!record || record.userId !== principal.userId) throw new NotFoundError(`No such ${what}`);
  return record;
}

/** A note of the caller's workspace: one in the Trash is as absent as another user's (see trash.ts). */
export function liveNote(principal: Principal, note: Note | null): Note {
  const found = owned(principal, note, 'note');
  if (found.trashedAt) throw new NotFoundError('No such note');
  return found;
}

export async function listNotes(
  ports: OwnerPorts,
  principal: Principal,
  filter: NoteFilter,
  page: PageRequest,
): Promise<{ notes: NoteSummaryResource[]; next_cursor: string | null }> {
  const tag = filter.tag === undefined ? undefined : checkedTag(filter.tag, ['query', 'tag']);
  const found: Page<Note> = await ports.notes.listNotes(
    principal.userId,
    { ...filter, ...(tag === undefined ? {} : { tag }) },
    page,
  );
  const icons = await iconsOf(ports, found.items);
  return { notes: found.items.map((note) => noteSummary(note, icons)), next_cursor: found.cursor };
}

export async function getNote(ports: OwnerPorts, principal: Principal, noteId: string): Promise<NoteResource> {
  const note = liveNote(principal, await ports.notes.getNote(noteId));
  const [icons, highlights, links, backlinks] = await Promise.all([
    iconsOf(ports, [note]),
    ports.notes.noteHighlights(note.id),
    ports.links.outgoing(note),
    ports.links.backlinks(principal.userId, note),
  ]);
  return {
    ...noteResource(note, icons, highlights),
    links: links.map(({ kind, target, note: linked, context }) => ({ kind, target, note: linked, context })),
    backlinks,
  };
}

export async function editNote(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  edit: NoteEdit,
): Promise<NoteResource> {
  const written = await writeEdit(ports, principal, noteId, edit);
  return getNote(ports, principal, written.id);
}

/** An edit written (title, comment, tags, reading state), the note as it is now; NotFoundError for another user's. */
async function writeEdit(ports: OwnerPorts, principal: Principal, noteId: string, edit: NoteEdit): Promise<Note> {
  const tags = edit.tags && checkedTags(edit.tags, ['body', 'tags']);
  liveNote(principal, await ports.notes.getNote(noteId));
  const now = isoTimestamp(ports.now());
  const grown = edit.comment !== undefined ? 'comment' : edit.title !== undefined ? 'title' : 'tags';
  const written = await editWithin(ports, noteId, ['body', grown], now, (note) => {
    const state = readingState(note, edit, now);
    const next: NoteEditChange = {
      title: edit.title ?? note.title,
      comment: edit.comment === undefined ? (note.comment ?? null) : edit.comment?.trim() || null,
      tags: tags ?? note.tags,
      ...state,
    };
    const same =
      next.title === note.title &&
      next.comment === (note.comment ?? null) &&
      next.tags.join('\n') === note.tags.join('\n') &&
      state.archivedAt === (note.archivedAt ?? null) &&
      state.starredAt === (note.starredAt ?? null);
    return same ? null : next;
  });
  return owned(principal, written, 'note');
}

/**
 * The store's editNote with the note's size kept within NoteBody's limits: a change that would make
 * the note too big to store is the 422 `note_too_large` at `loc`, checked before the write (and, should
 * an append race it, when DynamoDB refuses the size), and nothing is written.
 */
async function editWithin(
  ports: OwnerPorts,
  noteId: string,
  loc: (string | number)[],
  updated: string,
  change: (note: Note) => NoteEditChange | null,
): Promise<Note | null> {
  const tooLarge = new InvalidInputError([
    {
      loc,
      msg: 'The note would be larger than a note can be stored; nothing was changed',
      type: 'note_too_large',
    },
  ]);
  try {
    return await ports.notes.editNote(
      noteId,
      (note) => {
        const next = change(note);
        if (next && NoteBody.of(note).refusal({ ...note, ...next })) throw tooLarge;
        return next;
      },
      updated,
    );
  } catch (error) {
    throw error instanceof NoteTooLargeError ? tooLarge : error;
  }
}

/**
 * A note's reading state after an edit asking for `archived`/`starred` (absent: as it was). Asking for
 * the state a note is in keeps the time it got there.
 */
function readingState(note: Note, edit: Pick<NoteEdit, 'archived' | 'starred'>, now: string): ReadingState {
  const since = (asked: boolean | undefined, current: string | null | undefined) =>
    asked === undefined ? (current ?? null) : asked ? (current ?? now) : null;
  return { archivedAt: since(edit.archived, note.archivedAt), starredAt: since(edit.starred, note.starredAt) };
}

/**
 * Adds and removes tags on a note, applied to the note as stored at the write (a save or an edit
 * meanwhile keeps its own tags): what an assistant's tagging tools do.
 */
export async function changeNoteTags(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  change: { readonly add?: readonly string[]; readonly remove?: readonly string[] },
): Promise<NoteResource> {
  const add = checkedTags(change.add ?? [], ['tags']);
  const remove = checkedTags(change.remove ?? [], ['tags']);
  const written = await writeTagChange(ports, principal, noteId, add, remove);
  return getNote(ports, principal, written.id);
}

/** Checked tags added and removed, on the note as stored at the write; NotFoundError for another user's. */
async function writeTagChange(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  add: readonly string[],
  remove: readonly string[],
): Promise<Note> {
  liveNote(principal, await ports.notes.getNote(noteId));
  const written = await editWithin(ports, noteId, ['tags'], isoTimestamp(ports.now()), (note) => {
    const tags = [...new Set([...note.tags.filter((tag) => !remove.includes(tag)), ...add])];
    if (tags.length > MAX_TAGS_PER_NOTE)
      throw new InvalidInputError([
        { loc: ['tags'], msg: `A note carries at most ${MAX_TAGS_PER_NOTE} tags`, type: 'too_long' },
      ]);
    return tags.join('\n') === note.tags.join('\n') ? null : { title: note.title, comment: note.comment ?? null, tags };
  });
  return owned(principal, written, 'note');
}

/** Bulk actions run this many notes at once. */
const BULK_CONCURRENCY = 8;

/**
 * One action on many notes (the Library's selection, `PATCH /api/v2/me/notes`): each id on its own,
 * answered in the order given. An id of another user's note is `not_found`, exactly as an unknown
 * one: nothing says it exists. A note the action cannot apply to (a 51st tag) is `refused`, with why.
 */
export async function bulkEdit(
  ports: OwnerPorts,
  principal: Principal,
  request: NoteBulkEdit,
): Promise<NoteBulkResult> {
  const tagging = request.action === 'tag' || request.action === 'untag';
  const tags = tagging ? checkedTags(request.tags ?? [], ['body', 'tags']) : [];
  if (tagging && tags.length === 0)
    throw new InvalidInputError([
      { loc: ['body', 'tags'], msg: `Name the tags to ${request.action}`, type: 'missing' },
    ]);
  const apply: Record<NoteBulkEdit['action'], (noteId: string) => Promise<unknown>> = {
    archive: (noteId) => writeEdit(ports, principal, noteId, { archived: true }),
    unarchive: (noteId) => writeEdit(ports, principal, noteId, { archived: false }),
    star: (noteId) => writeEdit(ports, principal, noteId, { starred: true }),
    unstar: (noteId) => writeEdit(ports, principal, noteId, { starred: false }),
    tag: (noteId) => writeTagChange(ports, principal, noteId, tags, []),
    untag: (noteId) => writeTagChange(ports, principal, noteId, [], tags),
    delete: (noteId) => deleteNote(ports, principal, noteId),
  };
  const ids = [...new Set(request.ids.map((id) => id.toLowerCase()))];
  const results: NoteBulkResult['results'] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      const id = ids[index]!;
      try {
        await apply[request.action](id);
        results[index] = { id, status: 'done' };
      } catch (error) {
        if (error instanceof NotFoundError) results[index] = { id, status: 'not_found' };
        else if (error instanceof InvalidInputError) results[index] = { id, status: 'refused', message: error.message };
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, ids.length) }, worker));
  return { results };
}

/**
 * Deleting a note moves it to the Trash (trash.ts): out of every list, search, feed, link and review
 * until restored, and deleted for good TRASH_RETENTION_DAYS later.
 */
export async function deleteNote(
  ports: Pick<OwnerPorts, 'notes' | 'now'>,
  principal: Principal,
  noteId: string,
): Promise<void> {
  liveNote(principal, await ports.notes.getNote(noteId));
  const trashed = await ports.notes.trashNote(noteId, isoTimestamp(ports.now()));
  if (!trashed) throw new NotFoundError('No such note');
}

/**
 * Fetch again: asks the page worker to keep the note's page anew. A page that is gone by then keeps
 * its last copy (and says so); a note without a page is a 404.
 */
export async function refetchArticle(
  ports: OwnerPorts & { readonly enrichment: EnrichmentPublisher },
  principal: Principal,
  noteId: string,
): Promise<void> {
  const note = liveNote(principal, await ports.notes.getNote(noteId));
  if (!note.bookmarkId) throw new NotFoundError('No page to fetch');
  await ports.enrichment.publish({
    bookmarkId: note.bookmarkId,
    scrapeDescription: false,
    fetchIcon: false,
    article: true,
  });
}

/** The note's kept page: its metadata from the bookmark's row, its text and HTML from the article store. */
export async function getArticle(ports: OwnerPorts, principal: Principal, noteId: string): Promise<ArticleResource> {
  const note = liveNote(principal, await ports.notes.getNote(noteId));
  const { record, content } = await keptPage(ports, note);
  return articleResource(record, content);
}

/** The note's kept page: its metadata from the bookmark's row, its text and HTML from the article store (null while none). */
export async function keptPage(
  ports: Pick<OwnerPorts, 'notes' | 'articles'>,
  note: Note,
): Promise<{ record: ArticleRecord | null; content: { html: string; text: string } | null }> {
  const [bookmark] = note.bookmarkId ? await ports.notes.getBookmarks([note.bookmarkId]) : [];
  const record = (bookmark as { article?: ArticleRecord | null } | undefined)?.article ?? null;
  const content = record?.hash && bookmark ? await ports.articles.getContent(bookmark.id) : null;
  return { record, content };
}

export async function listTags(ports: OwnerPorts, principal: Principal): Promise<TagListResource> {
  const [counts, jobs] = await Promise.all([
    ports.notes.tagCounts(principal.userId),
    ports.notes.retagJobs(principal.userId),
  ]);
  return {
    tags: [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => ({ name, count })),
    ...(jobs.length
      ? {
          unfinished: jobs.map((job) => ({
            tag: job.from,
            into: job.to,
            mode: job.mode,
            notes_changed: job.notesChanged,
            started: job.started,
          })),
        }
      : {}),
  };
}

/**
 * Moves every note (and every feed filter) from one tag to another, as a resumable job: it is
 * recorded before the first note moves and removed after the last. A run stops at its time budget
 * (`deadline`, less RETAG_RESERVE_MS) with where it got to recorded, and answers `unfinished`; the
 * enrichment sweeper carries such a job on by itself (resumeRetagJobs), as it does one whose run was
 * cut short (a timeout, a crash) once its lease has passed. Until then it is listed as unfinished,
 * and repeating the same rename or merge carries on from the notes still carrying the old tag (a
 * rename is not refused then for the new name its own first run gave out). A rename refuses a name
 * another tag has (409); a merge wants exactly that; another rename or merge of a tag with an
 * unfinished one is a 409 until that one is finished. Each note is its own conditional write, so a
 * save meanwhile is re-read, never overwritten.
 */
export async function retag(
  ports: OwnerPorts,
  principal: Principal,
  from: string,
  to: string,
  mode: 'rename' | 'merge',
  deadline: Deadline = Deadline.none(),
): Promise<TagChangeResource> {
  const source = checkedTag(from, ['path', 'tag']);
  const target = checkedTag(to, ['body', mode === 'rename' ? 'name' : 'into']);
  const unfinished = (await ports.notes.retagJobs(principal.userId)).find((job) => job.from === source);
  const job = unfinished ?? (await startRetag(ports, principal, source, target, mode));
  if (!job) return { tag: target, notes_changed: 0 };
  if (job.to !== target || job.mode !== mode)
    throw new ConflictError(
      `A ${job.mode} of ${source} into ${job.to} is unfinished: repeat it to finish it before changing ${source} again`,
    );
  return runRetag(ports, job, deadline);
}

/**
 * How long a run of a job holds it: the sweeper leaves a job alone until this long after the run's
 * last progress. Far above the longest a run spends on one note (a function's timeout at most).
 */
export const RETAG_LEASE_MS = 120_000;
/** Time a run keeps back from its deadline for the feed filters and for recording where it stopped. */
const RETAG_RESERVE_MS = 1500;
/** Jobs the sweeper takes up in one run at most (one user's rename is one job). */
const RETAG_JOBS_PER_SWEEP = 10;

/** A new job, after the checks a first run makes; null when there is nothing to move (a tag into itself). */
async function startRetag(
  ports: OwnerPorts,
  principal: Principal,
  source: string,
  target: string,
  mode: 'rename' | 'merge',
): Promise<RetagJob | null> {
  if ((await ports.notes.notesTagged(principal.userId, source, 1)).length === 0)
    throw new NotFoundError(`No note carries the tag ${source}`);
  if (source === target) return null;
  if (mode === 'rename' && (await ports.notes.notesTagged(principal.userId, target, 1)).length)
    throw new ConflictError(`The tag ${target} exists already: merge ${source} into it instead`);
  const started = isoTimestamp(ports.now());
  return ports.notes.startRetagJob({
    userId: principal.userId,
    from: source,
    to: target,
    mode,
    started,
    notesChanged: 0,
    resumeAt: leasedUntil(ports),
  });
}

type RetagPorts = Pick<OwnerPorts, 'notes' | 'feeds' | 'now'>;

const leasedUntil = (ports: Pick<OwnerPorts, 'now'>) => isoTimestamp(new Date(ports.now().getTime() + RETAG_LEASE_MS));

/**
 * Runs a job (new or resumed) until it ends or its time budget does: the notes still carrying its
 * tag, then the feed filters. Stopped by the budget, it records how far it got, due for the sweeper at once.
 */
async function runRetag(ports: RetagPorts, job: RetagJob, deadline: Deadline): Promise<TagChangeResource> {
  const updated = isoTimestamp(ports.now());
  const swap = (tags: readonly string[]) => [...new Set(tags.map((tag) => (tag === job.from ? job.to : tag)))];
  let changed = job.notesChanged;
  // Held by this run: the sweeper leaves it alone while the run makes progress.
  await ports.notes.recordRetagJob({ ...job, resumeAt: leasedUntil(ports) });
  for (const noteId of await ports.notes.notesTagged(job.userId, job.from)) {
    if (deadline.remainingMs() < RETAG_RESERVE_MS) {
      await ports.notes.recordRetagJob({ ...job, notesChanged: changed, resumeAt: isoTimestamp(ports.now()) });
      return { tag: job.to, notes_changed: changed, unfinished: true };
    }
    const written = await ports.notes.editNote(
      noteId,
      (note) =>
        note.userId === job.userId && note.tags.includes(job.from)
          ? { title: note.title, comment: note.comment ?? null, tags: swap(note.tags) }
          : null,
      updated,
    );
    if (!written?.tags.includes(job.to)) continue;
    // How far it got, after every note: what an interrupted run shows as unfinished.
    await ports.notes.recordRetagJob({ ...job, notesChanged: ++changed, resumeAt: leasedUntil(ports) });
  }
  const feeds = await ports.feeds.listFeeds(job.userId);
  for (const feed of feeds.filter((candidate) => candidate.tags.includes(job.from)))
    await ports.feeds.replaceFeed(feed, updateFeedRecord(feed, { tags: swap(feed.tags) }, ports.now()));
  await ports.notes.finishRetagJob(job);
  return { tag: job.to, notes_changed: changed };
}

/**
 * Carries on the renames and merges of every user that are due (stopped at their budget, or their
 * run's lease passed), each as its owner's own run would, within `deadline`. Each job is read again
 * from its owner's partition first: one finished or taken up meanwhile is left alone.
 */
export async function resumeRetagJobs(
  ports: RetagPorts,
  deadline: Deadline,
): Promise<{ resumed: number; finished: number }> {
  const now = isoTimestamp(ports.now());
  let resumed = 0;
  let finished = 0;
  for (const due of await ports.notes.dueRetagJobs(now, RETAG_JOBS_PER_SWEEP)) {
    if (deadline.remainingMs() < RETAG_RESERVE_MS) break;
    const job = (await ports.notes.retagJobs(due.userId)).find((candidate) => candidate.from === due.from);
    if (!job || job.resumeAt > now) continue;
    resumed++;
    if (!(await runRetag(ports, job, deadline)).unfinished) finished++;
  }
  return { resumed, finished };
}

export async function listFeeds(ports: OwnerPorts, principal: Principal) {
  const feeds = await ports.feeds.listFeeds(principal.userId);
  return { feeds: feeds.map((feed) => feedResource(ports, feed)) };
}

export async function getFeed(ports: OwnerPorts, principal: Principal, feedId: string): Promise<FeedResource> {
  return feedResource(ports, owned(principal, await ports.feeds.getFeed(feedId), 'feed'));
}

/**
 * Puts a note into one of the owner's feeds by giving it the tags the feed shows (tagsToJoinFeed):
 * nothing changes when the feed shows it already. The note is looked up first, so a note that is not
 * the caller's answers 404 whatever the feed. The one way every front end (API, pages, MCP) does it.
 */
export async function addNoteToFeed(
  ports: OwnerPorts,
  principal: Principal,
  noteId: string,
  feedId: string,
): Promise<{ feed: FeedResource; note: NoteResource; placed: NoteInFeedResource }> {
  const before = await getNote(ports, principal, noteId);
  const feed = await getFeed(ports, principal, feedId);
  const tagsAdded = tagsToJoinFeed(feed, before.tags);
  const note = tagsAdded.length ? await changeNoteTags(ports, principal, noteId, { add: tagsAdded }) : before;
  return {
    feed,
    note,
    placed: {
      feed_id: feed.id,
      note_id: note.id,
      tags_added: tagsAdded,
      note_tags: note.tags,
      page_url: feed.page_url,
    },
  };
}

export async function createFeed(ports: OwnerPorts, principal: Principal, input: FeedCreate): Promise<FeedResource> {
  const feed = newFeedRecord({
    id: ports.newId(),
    userId: principal.userId,
    settings: { ...input, tags: checkedTags(input.tags, ['body', 'tags']) },
    now: ports.now(),
  });
  await ports.feeds.createFeed(feed);
  return feedResource(ports, feed);
}

export async function editFeed(
  ports: OwnerPorts,
  principal: Principal,
  feedId: string,
  edit: FeedEdit,
): Promise<FeedResource> {
  const current = owned(principal, await ports.feeds.getFeed(feedId), 'feed');
  const tags = edit.tags && checkedTags(edit.tags, ['body', 'tags']);
  const next = updateFeedRecord(current, { ...edit, ...(tags ? { tags } : {}) }, ports.now());
  if (!(await ports.feeds.replaceFeed(current, next))) throw new ConflictError('The feed changed meanwhile; try again');
  return feedResource(ports, next);
}

export async function deleteFeed(ports: OwnerPorts, principal: Principal, feedId: string): Promise<void> {
  owned(principal, await ports.feeds.getFeed(feedId), 'feed');
  await ports.feeds.deleteFeed(feedId);
}

export async function listTokens(ports: OwnerPorts, principal: Principal) {
  return { tokens: (await ports.tokens.listTokens(principal.userId)).map(tokenResource) };
}

export async function createToken(
  ports: OwnerPorts,
  principal: Principal,
  input: TokenCreate,
): Promise<CreatedTokenResource> {
  const now = ports.now();
  const days = input.expires_in_days ?? undefined;
  const token = newAccessToken({
    id: ports.newId(),
    userId: principal.userId,
    label: input.label,
    expires: expiryAfter(now, days === undefined ? undefined : days * 86_400_000),
    now,
  });
  await ports.tokens.createToken(token.record, token.hash);
  return { ...tokenResource(token.record), token: token.secret };
}

export async function revokeToken(ports: OwnerPorts, principal: Principal, tokenId: string): Promise<TokenResource> {
  const token = owned(principal, (await ports.tokens.findToken(tokenId))?.token ?? null, 'token');
  if (!token.revoked) await ports.tokens.revokeToken(token.id);
  return tokenResource({ ...token, revoked: true });
}

export async function getAccount(ports: OwnerPorts, principal: Principal): Promise<AccountResource> {
  const [user, login] = await Promise.all([
    ports.accounts.getUser(principal.userId),
    ports.logins.getLoginOfUser(principal.userId),
  ]);
  if (!user) throw new NotFoundError('No such account');
  return accountResource(user, login);
}

export async function exportAccount(ports: OwnerPorts, principal: Principal): Promise<AccountExportResource> {
  const [account, workspace, feeds, tokens] = await Promise.all([
    getAccount(ports, principal),
    exportWorkspace({ notes: ports.notes, highlights: ports.feeds, articles: ports.articles }, principal.userId),
    listFeeds(ports, principal),
    listTokens(ports, principal),
  ]);
  return {
    exported: isoTimestamp(ports.now()),
    account,
    bookmarks: workspace.bookmarks.map(mutableCopy),
    notes: workspace.notes.map(mutableCopy),
    ...feeds,
    ...tokens,
  };
}

/** An exported note as the resource's schema types it (its lists not readonly). */
const mutableCopy = <N extends ExportedNote>(note: N) => ({
  ...note,
  tags: [...note.tags],
  highlights: [...note.highlights],
});

export async function deleteAccount(ports: OwnerPorts, principal: Principal): Promise<void> {
  await getAccount(ports, principal);
  // The kept pages first, of the notes in the Trash too: a deletion cut short runs again from the
  // account that is still there.
  const lists = [
    (page: PageRequest) => ports.notes.listNotes(principal.userId, {}, page),
    (page: PageRequest) => ports.notes.listTrash(principal.userId, page),
  ];
  for (const list of lists)
    for (let cursor: string | undefined; ; ) {
      const page = await list({ limit: 100, ...(cursor ? { cursor } : {}) });
      for (const note of page.items) if (note.bookmarkId) await ports.articles.deleteArticle(note.bookmarkId);
      if (!page.cursor) break;
      cursor = page.cursor;
    }
  await ports.accounts.deleteAccount(principal.userId);
}

function checkedTag(raw: string, loc: (string | number)[]): string {
  const tag = normalizeTag(raw.trim().replace(/^#/, ''));
  if (!tag || !/^[\p{L}\p{N}\p{M}_-]+$/u.test(tag))
    throw new InvalidInputError([{ loc, msg: 'Input should be a tag: letters, digits, _ and -', type: 'tag' }]);
  return tag;
}

function checkedTags(raw: readonly string[], loc: (string | number)[]): string[] {
  return [...new Set(raw.map((tag, index) => checkedTag(tag, [...loc, index])))];
}

export async function iconsOf(ports: OwnerPorts, notes: readonly Note[]): Promise<Map<string, Bookmark>> {
  const bookmarks = await ports.notes.getBookmarks(notes.flatMap((note) => note.bookmarkId ?? []));
  return new Map(bookmarks.map((bookmark) => [bookmark.id, bookmark]));
}

export function noteSummary(note: Note, bookmarks: Map<string, Bookmark>): NoteSummaryResource {
  return {
    id: note.id,
    title: note.title,
    url: note.url,
    icon: (note.bookmarkId && bookmarks.get(note.bookmarkId)?.icon) || null,
    tags: [...note.tags],
    created: note.created,
    updated: note.updated,
    archived: note.archivedAt != null,
    archived_at: note.archivedAt ?? null,
    starred: note.starredAt != null,
    starred_at: note.starredAt ?? null,
  };
}

function noteResource(
  note: Note,
  bookmarks: Map<string, Bookmark>,
  highlights: readonly Highlight[],
): Omit<NoteResource, 'links' | 'backlinks'> {
  return {
    ...noteSummary(note, bookmarks),
    description: descriptionOf(note.body),
    comment: note.comment ?? null,
    body: note.body,
    highlights: highlights.map(highlightResource),
    version: note.version,
  };
}

/** A highlight as the API answers it, its anchor as a W3C TextQuoteSelector. */
export function highlightResource({ id, quote, comment, saved, anchor }: Highlight): HighlightResource {
  return {
    id,
    quote,
    comment,
    saved,
    selector: anchor ? { type: 'TextQuoteSelector', exact: quote, prefix: anchor.prefix, suffix: anchor.suffix } : null,
  };
}

function feedResource(ports: OwnerPorts, feed: FeedRecord): FeedResource {
  const links = ports.feedLinks(feed.id);
  return {
    id: feed.id,
    title: feed.title,
    description: feed.description,
    tags: [...feed.tags],
    match: feed.match,
    sharing: feed.sharing,
    items: feed.items,
    created: feed.created,
    updated: feed.updated,
    page_url: links.page,
    json_url: links.json,
    rss_url: links.rss,
    atom_url: links.atom,
    json_feed_url: links.jsonFeed,
  };
}

function tokenResource(token: AccessToken): TokenResource {
  return {
    id: token.id,
    label: token.label,
    created: token.created,
    expires: token.expires,
    last_used: token.lastUsed,
    last_used_by: token.lastUsedAgent,
    revoked: token.revoked,
  };
}

function accountResource(user: User, login: { email: string; verified: boolean } | null): AccountResource {
  return {
    id: user.id,
    name: user.name,
    display_name: user.displayName,
    email: login?.email ?? null,
    email_verified: login?.verified ?? false,
    plan: user.plan,
    note_cap: user.noteCap,
    note_count: user.noteCount,
    created: user.created,
  };
}
