import * as z from 'zod/mini';
import type { User } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * The user entity: its item, listed in the every-user index by creation, and its codec. A user who
 * signs in with an email also names its login's address (`email`, see the login entity).
 */
export function userItem(user: User, email?: string) {
  return {
    ...keys.user(user.id),
    ...keys.usersIndex(user.created, user.id),
    type: 'User',
    ...user,
    ...(email === undefined ? {} : { email }),
  };
}

const decodeUser = itemCodec('User', () =>
  z.object({
    id: z.string(),
    name: z.string(),
    displayName: z.optional(z.string()),
    plan: z.enum(['free', 'pro']),
    noteCap: z.number(),
    noteCount: z.optional(z.number()),
    created: z.string(),
    email: z.optional(z.string()),
  }),
);

/** A user item as the domain's user; MalformedItemError when it is not one. */
export function readUser(item: Record<string, unknown>): User {
  const stored = decodeUser(item);
  return {
    id: stored.id,
    name: stored.name,
    // Users from before display names and note counts have none.
    displayName: stored.displayName ?? '',
    plan: stored.plan,
    noteCap: stored.noteCap,
    noteCount: stored.noteCount ?? 0,
    created: stored.created,
  };
}

const decodeUserEmail = itemCodec('User', () => z.object({ email: z.optional(z.string()) }));

/** The address of the user's email login, from a user item read for it alone; null for a user without one. */
export function readUserEmail(item: Record<string, unknown>): string | null {
  return decodeUserEmail(item).email ?? null;
}
