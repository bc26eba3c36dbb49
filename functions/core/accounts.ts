import { FREE_PLAN_NOTE_CAP, type AccessToken, type Plan, type User } from './model';
import { isoTimestamp } from './text';
import { hashToken, mintToken } from './token';

/** The pro plan is capped too, only far higher: the cap keeps a runaway client from filling the table. */
export const PRO_PLAN_NOTE_CAP = 1_000_000;

export function newUser(input: { id: string; name: string; plan?: Plan; noteCap?: number; now: Date }): User {
  const plan = input.plan ?? 'free';
  return {
    id: input.id,
    name: input.name,
    plan,
    noteCap: input.noteCap ?? (plan === 'free' ? FREE_PLAN_NOTE_CAP : PRO_PLAN_NOTE_CAP),
    noteCount: 0,
    created: isoTimestamp(input.now),
  };
}

/** A new token: the record to store, its hash (the storage key) and the secret to show once. */
export function newAccessToken(input: { id: string; userId: string; label?: string | null; now: Date }) {
  const secret = mintToken();
  const record: AccessToken = { id: input.id, userId: input.userId, label: input.label ?? null, revoked: false, created: isoTimestamp(input.now) };
  return { record, secret, hash: hashToken(secret) };
}

export interface UserReader {
  getUser(userId: string): Promise<User | null>;
}
