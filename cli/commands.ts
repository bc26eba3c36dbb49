import { randomUUID } from 'node:crypto';
import { newAccessToken, newUser } from '../functions/core/accounts';
import { bookmarkResource, type Plan } from '../functions/core/model';
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
};

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
