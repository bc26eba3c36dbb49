import { type AccessToken, FREE_PLAN_NOTE_CAP, type Plan, type User } from '../model';
import { isoTimestamp } from '../text/text';
import { hashToken, mintToken } from '../token/token';

/** The pro plan is capped too, only far higher: the cap keeps a runaway client from filling the table. */
const PRO_PLAN_NOTE_CAP = 1_000_000;

export function newUser(input: {
  id: string;
  name: string;
  displayName?: string;
  plan?: Plan;
  noteCap?: number;
  now: Date;
}): User {
  const plan = input.plan ?? 'free';
  return {
    id: input.id,
    name: input.name,
    displayName: input.displayName ?? '',
    plan,
    noteCap: input.noteCap ?? planNoteCap(plan),
    noteCount: 0,
    created: isoTimestamp(input.now),
  };
}

/** The longest display name, in characters. */
export const DISPLAY_NAME_MAX_LENGTH = 80;

const DISPLAY_NAME_REFUSED = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\uFFFE\uFFFF]/;

/**
 * A display name as the person typed it, trimmed: empty (no public name), or refused with the reason
 * when it is too long or holds a control character or line break.
 */
export function displayNameOf(raw: string): { ok: true; value: string } | { ok: false; problem: string } {
  const value = raw.trim();
  if ([...value].length > DISPLAY_NAME_MAX_LENGTH)
    return { ok: false, problem: `A display name has at most ${DISPLAY_NAME_MAX_LENGTH} characters.` };
  if (DISPLAY_NAME_REFUSED.test(value) || !value.isWellFormed())
    return { ok: false, problem: 'A display name cannot hold control characters or line breaks.' };
  return { ok: true, value };
}

function planNoteCap(plan: Plan): number {
  return plan === 'free' ? FREE_PLAN_NOTE_CAP : PRO_PLAN_NOTE_CAP;
}

/**
 * A user's plan and cap after `gleaner users update`: a new plan brings its own cap unless one is
 * given. A cap below the notes already kept is allowed; it only stops new notes until some are deleted.
 */
export function changedPlan(
  user: Pick<User, 'plan' | 'noteCap'>,
  change: { plan?: Plan; noteCap?: number },
): Pick<User, 'plan' | 'noteCap'> {
  const plan = change.plan ?? user.plan;
  return { plan, noteCap: change.noteCap ?? (change.plan === undefined ? user.noteCap : planNoteCap(plan)) };
}

/** A new token: the record to store, its hash (the storage key) and the secret to show once. */
export function newAccessToken(input: {
  id: string;
  userId: string;
  label?: string | null;
  expires?: string | null;
  now: Date;
}) {
  const secret = mintToken();
  const record: AccessToken = {
    id: input.id,
    userId: input.userId,
    label: input.label ?? null,
    revoked: false,
    created: isoTimestamp(input.now),
    expires: input.expires ?? null,
    lastUsed: null,
    lastUsedAgent: null,
  };
  return { record, secret, hash: hashToken(secret) };
}

export interface UserReader {
  getUser(userId: string): Promise<User | null>;
}
