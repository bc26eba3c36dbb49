import { randomUUID } from 'node:crypto';
import { newAccessToken, newUser } from '../functions/core/accounts';
import { InvalidFeedSettingsError, newFeedRecord, parseMatch, parseSharing, parseTagList, updateFeedRecord, type FeedSettings } from '../functions/core/feed-settings';
import { bookmarkResource, type FeedRecord, type Plan } from '../functions/core/model';
import { routeUrl } from '../functions/platform/routes';
import type { Connection } from './connection';

export class UsageError extends Error {}
export class NotFoundError extends Error {}

interface Invocation extends Connection {
  readonly options: Record<string, string | boolean | undefined>;
  readonly args: string[];
}

type Command = (invocation: Invocation) => Promise<Record<string, unknown>>;

export const commands: Record<string, Command> = {
  'users create': async ({ options, accounts }) => {
    const name = requiredOption(options, 'name');
    const plan = (options.plan as string | undefined) ?? 'free';
    if (plan !== 'free' && plan !== 'pro') throw new UsageError('--plan must be free or pro');
    const user = newUser({ id: randomUUID(), name, plan: plan as Plan, noteCap: optionalCount(options, 'note-cap'), now: new Date() });
    await accounts.createUser(user);
    return { id: user.id, name: user.name, plan: user.plan, note_cap: user.noteCap };
  },

  'tokens create': async ({ options, accounts }) => {
    const token = newAccessToken({ id: randomUUID(), userId: requiredOption(options, 'user'), label: options.label as string | undefined, now: new Date() });
    await accounts.createToken(token.record, token.hash);
    return { id: token.record.id, token: token.secret, user_id: token.record.userId };
  },

  'tokens revoke': async ({ args, accounts }) => {
    const tokenId = requiredArgument(args, 'TOKEN_ID');
    if (!(await accounts.revokeToken(tokenId))) throw new NotFoundError(`no token with id ${tokenId}`);
    return { id: tokenId, revoked: true };
  },

  'notes get': async ({ args, bookmarks }) => {
    const noteId = requiredArgument(args, 'NOTE_ID');
    const note = await bookmarks.getNote(noteId);
    if (!note) throw new NotFoundError(`no note with id ${noteId}`);
    return { id: note.id, title: note.title, body: note.body, tags: note.tags, created: note.created, updated: note.updated };
  },

  'bookmarks get': async ({ args, bookmarks }) => {
    const bookmarkId = requiredArgument(args, 'BOOKMARK_ID');
    const bookmark = await bookmarks.getBookmark(bookmarkId);
    if (!bookmark) throw new NotFoundError(`no bookmark with id ${bookmarkId}`);
    return bookmarkResource(bookmark);
  },

  'feeds create': async ({ options, feeds, baseUrl }) => {
    const settings = feedSettings(options);
    requiredOption(options, 'tags');
    const feed = newFeedRecord({ id: randomUUID(), userId: requiredOption(options, 'user'), settings: { ...settings, title: requiredOption(options, 'title') }, now: new Date() });
    await feeds.createFeed(feed);
    return feedResource(feed, baseUrl);
  },

  'feeds update': async ({ args, options, feeds, baseUrl }) => {
    const feedId = requiredArgument(args, 'FEED_ID');
    const current = await feeds.getFeed(feedId);
    if (!current) throw new NotFoundError(`no feed with id ${feedId}`);
    const updated = updateFeedRecord(current, feedSettings(options), new Date());
    if (!(await feeds.replaceFeed(current, updated))) throw new Error(`feed ${feedId} changed meanwhile; try again`);
    return feedResource(updated, baseUrl);
  },

  'feeds list': async ({ options, accounts, feeds, baseUrl }) => {
    const userId = requiredOption(options, 'user');
    if (!(await accounts.getUser(userId))) throw new NotFoundError(`no user with id ${userId}`);
    const list = await feeds.listFeeds(userId);
    return { feeds: list.map((feed) => feedResource(feed, baseUrl)) };
  },

  'feeds delete': async ({ args, feeds }) => {
    const feedId = requiredArgument(args, 'FEED_ID');
    if (!(await feeds.deleteFeed(feedId))) throw new NotFoundError(`no feed with id ${feedId}`);
    return { id: feedId, deleted: true };
  },
};

function feedSettings(options: Invocation['options']): FeedSettings {
  const text = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
  try {
    return {
      title: text('title'),
      description: text('description'),
      tags: text('tags') === undefined ? undefined : parseTagList(text('tags')!),
      match: text('match') === undefined ? undefined : parseMatch(text('match')!),
      sharing: text('sharing') === undefined ? undefined : parseSharing(text('sharing')!),
    };
  } catch (error) {
    if (error instanceof InvalidFeedSettingsError) throw new UsageError(error.message);
    throw error;
  }
}

/** The feed as the CLI prints it, with the addresses readers use. */
function feedResource(feed: FeedRecord, baseUrl: string | null) {
  const base = baseUrl ?? '';
  return {
    id: feed.id,
    title: feed.title,
    description: feed.description,
    tags: feed.tags,
    match: feed.match,
    sharing: feed.sharing,
    json_url: routeUrl(base, 'GetPublishedFeed', { feed_id: feed.id }),
    rss_url: routeUrl(base, 'GetPublishedFeedRss', { feed_id: feed.id }),
  };
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

function optionalCount(options: Invocation['options'], name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) throw new UsageError(`--${name} must be a whole number`);
  return count;
}
