import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseUuidParameter } from '../functions/core/contract/validation';
import {
  type FeedSettings,
  InvalidFeedSettingsError,
  newFeedRecord,
  parseItems,
  parseMatch,
  parseSharing,
  parseTagList,
  updateFeedRecord,
} from '../functions/core/feed/settings';
import { EmailTakenError } from '../functions/core/identity/account-flows';
import { normalizeEmail } from '../functions/core/identity/email';
import { sendOneTimeLink } from '../functions/core/identity/links';
import { operatorFor } from '../functions/core/identity/principal';
import { importHere, importSaves } from '../functions/core/import/chunks';
import { readExport, type UploadedFile } from '../functions/core/import/detect';
import { ImportFileError } from '../functions/core/import/items';
import {
  type AccessToken,
  bookmarkResource,
  type FeedRecord,
  type Note,
  type Plan,
  trashPurgeTime,
  type User,
} from '../functions/core/model';
import * as library from '../functions/core/owner/library';
import * as trash from '../functions/core/owner/trash';
import { searchNotes } from '../functions/core/search/search';
import { MAX_SHARDS } from '../functions/core/search/shards';
import { snippetText } from '../functions/core/search/snippet';
import { isoTimestamp } from '../functions/core/text/text';
import {
  DEFAULT_ROTATION_GRACE,
  expiryAfter,
  expiryAfterRotation,
  InvalidDurationError,
  parseDuration,
  replacementExpiry,
  tokenAccepted,
} from '../functions/core/token/lifecycle';
import { changedPlan, newAccessToken, newUser } from '../functions/core/workspace/accounts';
import { bookmarkFileEntries, exportWorkspace } from '../functions/core/workspace/export';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageRequest } from '../functions/core/workspace/listing';
import { renderNetscapeBookmarks } from '../functions/core/workspace/netscape-bookmarks';
import { routeUrl } from '../functions/platform/routes';
import type { Connection } from './connection';
import { keyValueBlocks } from './output';

/** A usage mistake or an invalid value (an unknown option, a malformed id): exit status 2. */
export class UsageError extends Error {}

/** A command's answer that is a document (an export): printed as it is, or inside one JSON object with --json. */
export class DocumentOutput {
  constructor(
    readonly text: string,
    readonly json: Record<string, unknown>,
  ) {}
}
/** An id that names nothing: exit status 1, as every other failure (an unreadable file, a revoked token). */
class NotFoundError extends Error {}

/** Where the CLI writes: a process's stdout or stderr, or a test's buffer. */
export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

interface Invocation extends Connection {
  readonly options: Record<string, string | boolean | undefined>;
  readonly args: string[];
  /** Progress and warnings; the answer itself is the command's result. */
  readonly stderr: CliOutput;
}

type Command = (invocation: Invocation) => Promise<Record<string, unknown> | DocumentOutput>;

export const commands: Record<string, Command> = {
  'users create': async ({ options, accounts }) => {
    const name = requiredOption(options, 'name');
    const user = newUser({
      id: randomUUID(),
      name,
      plan: optionalPlan(options),
      noteCap: optionalCount(options, 'note-cap'),
      now: new Date(),
    });
    await accounts.createUser(user);
    return userResource(user);
  },

  'users list': async ({ options, accounts }) => {
    const page = await accounts.listUsers(pageRequest(options));
    return { users: page.items.map(userResource), cursor: page.cursor };
  },

  'users update': async ({ args, options, accounts }) => {
    const userId = requiredId(args, 'USER_ID');
    const change = { plan: optionalPlan(options), noteCap: optionalCount(options, 'note-cap') };
    if (change.plan === undefined && change.noteCap === undefined)
      throw new UsageError('give --plan or --note-cap (or both)');
    const user = await accounts.getUser(userId);
    const updated = user && (await accounts.updatePlan(userId, changedPlan(user, change)));
    if (!updated) throw new NotFoundError(`no user with id ${userId}`);
    return userResource(updated);
  },

  'users invite': async ({ args, options, accounts, identities, mailer, webBaseUrl }) => {
    const userId = requiredArgument(args, 'USER_ID');
    const email = normalizeEmail(requiredOption(options, 'email'));
    if (!email) throw new UsageError('--email must be an email address like name@example.com');
    if (!webBaseUrl) throw new UsageError('give --base-url (the BaseUrl output of the stack): the link points there');
    if (!(await accounts.getUser(userId))) throw new NotFoundError(`no user with id ${userId}`);
    const now = new Date();
    try {
      await identities.addLogin({ email, userId, passwordHash: null, verified: false, created: now.toISOString() });
    } catch (error) {
      if (error instanceof EmailTakenError) throw new UsageError(`${email} already belongs to an account`);
      throw error;
    }
    const link = await sendOneTimeLink({ links: identities, mailer, now: () => now }, webBaseUrl, 'invite', {
      email,
      userId,
    });
    return { user_id: userId, email, link, expires_in: '7d' };
  },

  'tokens create': async ({ options, accounts }) => {
    const now = new Date();
    const expires = expiryAfter(now, optionalDuration(options, 'expires-in'));
    const token = newAccessToken({
      id: randomUUID(),
      userId: requiredUserId(options),
      label: options.label as string | undefined,
      expires,
      now,
    });
    await accounts.createToken(token.record, token.hash);
    return { id: token.record.id, token: token.secret, user_id: token.record.userId, expires };
  },

  'tokens list': async ({ options, accounts }) => {
    const tokens = await accounts.listTokens(await existingUser(options, accounts));
    return { tokens: tokens.map(tokenResource) };
  },

  'tokens rotate': async ({ args, options, accounts }) => {
    const tokenId = requiredId(args, 'TOKEN_ID');
    const graceMs = optionalDuration(options, 'grace') ?? parseDuration(DEFAULT_ROTATION_GRACE, '--grace');
    const expiresInMs = optionalDuration(options, 'expires-in');
    const found = await accounts.findToken(tokenId);
    if (!found) throw new NotFoundError(`no token with id ${tokenId}`);
    const now = new Date();
    if (!tokenAccepted(found.token, now))
      throw new Error(`token ${tokenId} is revoked or expired already; create a new one instead`);
    const oldExpires = expiryAfterRotation(found.token, now, graceMs);
    const replacement = newAccessToken({
      id: randomUUID(),
      userId: found.token.userId,
      label: found.token.label,
      expires: replacementExpiry(found.token, now, expiresInMs),
      now,
    });
    if (
      !(await accounts.rotateToken(
        { tokenHash: found.tokenHash, expires: oldExpires },
        replacement.record,
        replacement.hash,
      ))
    ) {
      throw new Error(`token ${tokenId} was revoked meanwhile; nothing was changed`);
    }
    return {
      id: replacement.record.id,
      token: replacement.secret,
      user_id: replacement.record.userId,
      label: replacement.record.label,
      expires: replacement.record.expires,
      replaces: tokenId,
      replaced_expires: oldExpires,
    };
  },

  'tokens revoke': async ({ args, accounts }) => {
    const tokenId = requiredId(args, 'TOKEN_ID');
    if (!(await accounts.revokeToken(tokenId))) throw new NotFoundError(`no token with id ${tokenId}`);
    return { id: tokenId, revoked: true };
  },

  'notes get': async ({ args, bookmarks }) => {
    const noteId = requiredId(args, 'NOTE_ID');
    const note = await bookmarks.getNote(noteId);
    if (!note) throw new NotFoundError(`no note with id ${noteId}`);
    return noteResource(note);
  },

  'notes list': async ({ options, accounts, bookmarks }) => {
    if (options.trash && options.tag !== undefined) throw new UsageError('give --tag or --trash, not both');
    const [filter, request] = [tagFilter(options), pageRequest(options)];
    const userId = await existingUser(options, accounts);
    const page = options.trash
      ? await trash.trashedNotes({ notes: bookmarks, now: () => new Date() }, operatorFor(userId), request)
      : await bookmarks.listNotes(userId, filter, request);
    return { notes: page.items.map(noteResource), cursor: page.cursor };
  },

  // The owner's own use cases (the API's, the pages' and MCP's), acting for the note's owner.
  'notes delete': async ({ args, options, bookmarks, articles }) => {
    const { note, principal } = await noteAndOwner(args, bookmarks);
    const ports = { notes: bookmarks, articles: articles ?? keptPagesByStream, now: () => new Date() };
    if (!note.trashedAt) await ownerCase(note.id, () => library.deleteNote(ports, principal, note.id));
    else if (!options.forever)
      throw new Error(`note ${note.id} is in the Trash already: restore it with \`notes restore\`, or give --forever`);
    if (options.forever) {
      await ownerCase(note.id, () => trash.deleteForever(ports, principal, note.id));
      return { id: note.id, bookmark_id: note.bookmarkId, deleted: true };
    }
    const trashed = await bookmarks.getNote(note.id);
    return { id: note.id, bookmark_id: note.bookmarkId, ...trashTimes(trashed ?? note) };
  },

  'notes restore': async ({ args, bookmarks }) => {
    const { note, principal } = await noteAndOwner(args, bookmarks);
    const ports = { notes: bookmarks, now: () => new Date() };
    return noteResource(await ownerCase(note.id, () => trash.restoreTrashed(ports, principal, note.id)));
  },

  'bookmarks list': async ({ options, accounts, bookmarks }) => {
    const [filter, request] = [tagFilter(options), pageRequest(options)];
    const page = await bookmarks.listBookmarks(await existingUser(options, accounts), filter, request);
    return { bookmarks: page.items.map(bookmarkResource), cursor: page.cursor };
  },

  'bookmarks get': async ({ args, bookmarks }) => {
    const bookmarkId = requiredId(args, 'BOOKMARK_ID');
    const bookmark = await bookmarks.getBookmark(bookmarkId);
    if (!bookmark) throw new NotFoundError(`no bookmark with id ${bookmarkId}`);
    return bookmarkResource(bookmark);
  },

  import: async ({ args, options, accounts, bookmarks, imports, importBookmarks, articles, stderr }) => {
    if (args.length === 0) throw new UsageError('FILE is required');
    requiredUserId(options); // a malformed id is told before the file is read
    const uploads = args.map((file) => {
      try {
        return { name: basename(file), bytes: new Uint8Array(readFileSync(file)) };
      } catch (error) {
        throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
    });
    const userId = await existingUser(options, accounts);
    const parsed = readImport(uploads);
    const progress = stderr.isTTY
      ? (done: number, total: number) => stderr.write(`\rimporting ${done}/${total}`)
      : undefined;
    // The import worker's own path, its chunks run here: recorded as an import of the account, its
    // new pages waiting in the import backlog, which the sweeper hands out a bounded batch at a time.
    const saves = importSaves({
      store: importBookmarks,
      articles: articles && { store: articles, bookmarks },
      newId: randomUUID,
      now: () => new Date(),
      logger: { warn: () => {} },
    });
    const ports = { imports, save: saves, newId: randomUUID, now: () => new Date() };
    const fileName = uploads.map((upload) => upload.name).join(', ');
    // While another import of the account is under way, this one is refused (exit 1), naming it.
    const report = await importHere(ports, userId, fileName, parsed, progress);
    if (progress) stderr.write('\n');
    if (report.over_cap)
      stderr.write(
        `gleaner: stopped at the note cap (${report.note_cap}): ${report.over_cap} links not imported; delete notes or raise the cap, then run the import again\n`,
      );
    if (!options.json)
      for (const skip of report.skipped)
        stderr.write(`skipped ${skip.file ? `${skip.file} ` : ''}row ${skip.row}: ${skip.reason}\n`);
    return { user_id: userId, ...report };
  },

  export: async ({ options, accounts, bookmarks, feeds, articles }) => {
    const format = (options.format as string | undefined) ?? 'netscape';
    if (format !== 'netscape' && format !== 'json') throw new UsageError('--format must be netscape or json');
    const userId = await existingUser(options, accounts);
    const exported = await exportWorkspace({ notes: bookmarks, highlights: feeds, articles }, userId);
    if (format === 'json') {
      const json = { user_id: userId, ...exported };
      return new DocumentOutput(`${JSON.stringify(json, null, 2)}\n`, json);
    }
    // A bookmark file holds links only: notes without a bookmark are in the JSON export alone.
    const document = renderNetscapeBookmarks(bookmarkFileEntries(exported.bookmarks));
    return new DocumentOutput(document, { user_id: userId, format, document });
  },

  search: async ({ args, options, accounts, search }) => {
    const userId = await existingUser(options, accounts);
    if (args.length !== 1)
      throw new UsageError('give the query as one argument, quoted: gleaner search --user ID "query"');
    const limit = optionalCount(options, 'limit');
    const result = await searchNotes(await search(), userId, args[0]!, {
      mode: options.mode as string | undefined,
      limit,
      cursor: options.cursor as string | undefined,
    });
    if (!result.ok) throw new UsageError(result.problem.message);
    const { results, cursor, mode, model, reason } = result.answer;
    const json = {
      results: results.map((hit) => ({ ...hit, snippet: snippetText(hit.snippet) })),
      cursor,
      mode,
      ...(model ? { model } : {}),
      ...(reason ? { reason } : {}),
    };
    return new DocumentOutput(searchTable(json), json);
  },

  reindex: async ({ options, accounts, reindex }) => {
    const shard = optionalCount(options, 'shard');
    const shards = optionalCount(options, 'shards');
    const resume = options.resume === true;
    if ([options.user, shard, shards].filter((given) => given !== undefined).length > 1)
      throw new UsageError('give one of --user, --shard and --shards');
    if (options.user !== undefined) {
      if (resume) throw new UsageError('--resume continues a shard or index rebuild; a user is rebuilt in place');
      const userId = await existingUser(options, accounts);
      return { indexed: await reindex({ userId }), user_id: userId };
    }
    if (shards !== undefined) {
      if (shards < 1 || shards > MAX_SHARDS) throw new UsageError(`--shards must be from 1 to ${MAX_SHARDS}`);
      return { indexed: await reindex({ shards, resume }), shards };
    }
    return {
      indexed: await reindex({ ...(shard === undefined ? {} : { shard }), resume }),
      ...(shard === undefined ? {} : { shard }),
    };
  },

  migrate: async ({ migrate }) => {
    const results = await migrate();
    return { migrations: results.map(({ name, description, changed }) => ({ name, description, ...changed })) };
  },

  'feeds create': async ({ options, feeds, baseUrl, stderr }) => {
    const settings = feedSettings(options);
    requiredOption(options, 'tags');
    const feed = newFeedRecord({
      id: randomUUID(),
      userId: requiredUserId(options),
      settings: { ...settings, title: requiredOption(options, 'title') },
      now: new Date(),
    });
    await feeds.createFeed(feed);
    return feedResources([feed], baseUrl, stderr)[0]!;
  },

  'feeds get': async ({ args, feeds, baseUrl, stderr }) => {
    const feedId = requiredId(args, 'FEED_ID');
    const feed = await feeds.getFeed(feedId);
    if (!feed) throw new NotFoundError(`no feed with id ${feedId}`);
    return feedResources([feed], baseUrl, stderr)[0]!;
  },

  'feeds update': async ({ args, options, feeds, baseUrl, stderr }) => {
    const feedId = requiredId(args, 'FEED_ID');
    const change = feedSettings(options);
    if (Object.values(change).every((value) => value === undefined))
      throw new UsageError('give at least one of --title, --description, --tags, --match, --sharing, --items');
    const current = await feeds.getFeed(feedId);
    if (!current) throw new NotFoundError(`no feed with id ${feedId}`);
    const updated = updateFeedRecord(current, change, new Date());
    if (!(await feeds.replaceFeed(current, updated))) throw new Error(`feed ${feedId} changed meanwhile; try again`);
    return feedResources([updated], baseUrl, stderr)[0]!;
  },

  'feeds list': async ({ options, accounts, feeds, baseUrl, stderr }) => {
    const userId = await existingUser(options, accounts);
    const list = feedResources(await feeds.listFeeds(userId), baseUrl, stderr);
    // Each feed has five addresses: one block of key: value lines a feed reads better than a table.
    return new DocumentOutput(list.length ? `${keyValueBlocks(list)}\n` : '(no feeds)\n', { feeds: list });
  },

  'feeds delete': async ({ args, feeds }) => {
    const feedId = requiredId(args, 'FEED_ID');
    if (!(await feeds.deleteFeed(feedId))) throw new NotFoundError(`no feed with id ${feedId}`);
    return { id: feedId, deleted: true };
  },
};

/** One line per hit (score, title, snippet with `**` around matches), then the mode and the next cursor. */
function searchTable(answer: {
  results: { title: string; url: string | null; score: number; snippet: string }[];
  cursor: string | null;
  mode: string;
  model?: string;
  reason?: string;
}): string {
  const lines = answer.results.map(
    (hit) =>
      `${hit.score.toFixed(3)}  ${hit.title}${hit.url ? ` <${hit.url}>` : ''}  ${hit.snippet.replace(/\s+/g, ' ')}`,
  );
  return [
    ...(lines.length ? lines : ['(no results)']),
    `mode: ${answer.mode}${answer.model ? ` (model ${answer.model})` : ''}${answer.reason ? ` (${answer.reason})` : ''}`,
    ...(answer.cursor ? [`cursor: ${answer.cursor}`] : []),
    '',
  ].join('\n');
}

function feedSettings(options: Invocation['options']): FeedSettings {
  const text = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
  try {
    return {
      title: text('title'),
      description: text('description'),
      tags: text('tags') === undefined ? undefined : parseTagList(text('tags')!),
      match: text('match') === undefined ? undefined : parseMatch(text('match')!),
      sharing: text('sharing') === undefined ? undefined : parseSharing(text('sharing')!),
      items: text('items') === undefined ? undefined : parseItems(text('items')!),
    };
  } catch (error) {
    if (error instanceof InvalidFeedSettingsError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Feeds as the CLI prints them, with every address readers use: the page for people, RSS, Atom and
 * JSON Feed for feed readers, and the JSON of the contract's API. On stderr it says which of them
 * answer 404 (private feeds) and how to share them, and when the addresses lack the service's.
 */
function feedResources(feeds: readonly FeedRecord[], baseUrl: string | null, stderr: CliOutput) {
  for (const feed of feeds.filter((candidate) => candidate.sharing === 'private'))
    stderr.write(
      `gleaner: feed ${feed.id} is private, so its addresses answer 404 to everyone; to share it with whoever has the link: gleaner feeds update ${feed.id} --sharing link\n`,
    );
  if (baseUrl === null && feeds.length)
    stderr.write(
      'gleaner: the addresses are paths only; pass --base-url (the stack output BaseUrl) or set GLEANER_BASE_URL\n',
    );
  return feeds.map((feed) => feedResource(feed, baseUrl ?? ''));
}

function feedResource(feed: FeedRecord, baseUrl: string) {
  const url = (routeId: string) => routeUrl(baseUrl, routeId, { feed_id: feed.id });
  return {
    id: feed.id,
    title: feed.title,
    description: feed.description,
    tags: feed.tags,
    match: feed.match,
    sharing: feed.sharing,
    items: feed.items,
    page_url: url('GetFeedPage'),
    rss_url: url('GetPublishedFeedRss'),
    atom_url: url('GetFeedAtom'),
    json_feed_url: url('GetJsonFeed'),
    json_url: url('GetPublishedFeed'),
  };
}

/** A token as `tokens list` shows it: everything but the secret (which is never stored). */
function tokenResource(token: AccessToken) {
  return {
    id: token.id,
    label: token.label,
    created: token.created,
    last_used: token.lastUsed,
    last_used_by: token.lastUsedAgent,
    expires: token.expires,
    revoked: token.revoked,
  };
}

function optionalDuration(options: Invocation['options'], name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  try {
    return parseDuration(String(value), `--${name}`);
  } catch (error) {
    if (error instanceof InvalidDurationError) throw new UsageError(error.message);
    throw error;
  }
}

function userResource(user: User) {
  return { id: user.id, name: user.name, plan: user.plan, note_cap: user.noteCap, note_count: user.noteCount };
}

/** The note NOTE_ID names (in the Trash too), with its owner as the principal the owner's use cases act for. */
async function noteAndOwner(args: string[], bookmarks: Connection['bookmarks']) {
  const noteId = requiredId(args, 'NOTE_ID');
  const note = await bookmarks.getNote(noteId);
  if (!note) throw new NotFoundError(`no note with id ${noteId}`);
  return { note, principal: operatorFor(note.userId) };
}

/** An owner's use case on a note, its "no such note" told in the CLI's words. */
async function ownerCase<T>(noteId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof library.NotFoundError)
      throw new NotFoundError(`no note with id ${noteId}${/Trash/.test(error.message) ? ' in the Trash' : ''}`);
    throw error;
  }
}

/**
 * Without the kept pages' store (a deployed table, and no ARTICLE_STORE), a note deleted for good
 * leaves its kept page to the stack's stream consumer, which deletes what a note deleted from the
 * Trash had (functions/search-indexer).
 */
const keptPagesByStream = { deleteArticle: async () => 0 };

/** When a note in the Trash went there, and when it is deleted for good; nothing for a live note. */
function trashTimes(note: Note) {
  return note.trashedAt ? { trashed_at: note.trashedAt, purge_at: isoTimestamp(trashPurgeTime(note.trashedAt)) } : {};
}

function noteResource(note: Note) {
  return {
    id: note.id,
    bookmark_id: note.bookmarkId,
    url: note.url,
    title: note.title,
    body: note.body,
    tags: note.tags,
    created: note.created,
    updated: note.updated,
    archived: note.archivedAt != null,
    archived_at: note.archivedAt ?? null,
    starred: note.starredAt != null,
    starred_at: note.starredAt ?? null,
    ...trashTimes(note),
  };
}

/** The --user option's id, once the user is known to exist. */
async function existingUser(options: Invocation['options'], accounts: Connection['accounts']): Promise<string> {
  const userId = requiredUserId(options);
  if (!(await accounts.getUser(userId))) throw new NotFoundError(`no user with id ${userId}`);
  return userId;
}

function optionalPlan(options: Invocation['options']): Plan | undefined {
  const plan = options.plan;
  if (plan === undefined) return undefined;
  if (plan !== 'free' && plan !== 'pro') throw new UsageError('--plan must be free or pro');
  return plan;
}

function tagFilter(options: Invocation['options']): { tag?: string } {
  if (options.tag === undefined) return {};
  const tags = parseTagList(String(options.tag));
  if (tags.length !== 1) throw new UsageError('--tag takes one tag');
  return { tag: tags[0]! };
}

function pageRequest(options: Invocation['options']): PageRequest {
  const limit = optionalCount(options, 'limit') ?? DEFAULT_PAGE_SIZE;
  if (limit < 1 || limit > MAX_PAGE_SIZE) throw new UsageError(`--limit must be from 1 to ${MAX_PAGE_SIZE}`);
  return { limit, cursor: options.cursor as string | undefined };
}

function requiredOption(options: Invocation['options'], name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} is required`);
  return value.trim();
}

function requiredArgument(args: string[], name: string): string {
  if (!args[0]) throw new UsageError(`${name} is required`);
  return args[0];
}

/** Ids are UUIDs: anything else is a mistyped value, told apart from an id that names nothing. */
function uuid(value: string, name: string): string {
  const parsed = parseUuidParameter(name, value);
  if (!parsed.ok)
    throw new UsageError(`${name} must be a UUID, such as the id a create command printed (got "${value}")`);
  return parsed.value;
}

function requiredId(args: string[], name: string): string {
  return uuid(requiredArgument(args, name), name);
}

function requiredUserId(options: Invocation['options']): string {
  return uuid(requiredOption(options, 'user'), '--user');
}

function optionalCount(options: Invocation['options'], name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) throw new UsageError(`--${name} must be a whole number`);
  return count;
}

/** The export's items, or a usage error naming the formats Gleaner knows. */
function readImport(uploads: UploadedFile[]) {
  try {
    return readExport(uploads);
  } catch (error) {
    if (error instanceof ImportFileError) throw new UsageError(error.message);
    throw error;
  }
}
