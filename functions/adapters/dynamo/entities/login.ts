import * as z from 'zod/mini';
import type { Login } from '../../../core/identity/identity';
import { keys } from '../keys';
import { itemCodec } from './codec';

/** An email login (with its password hash), keyed by its address and listed in its user's AUTH index. */
export function loginItem(login: Login) {
  return { ...keys.login(login.email), ...keys.authIndex(login.userId, 'EMAIL', login.email), type: 'Login', ...login };
}

const decodeLogin = itemCodec('Login', () =>
  z.object({
    email: z.string(),
    userId: z.string(),
    passwordHash: z.nullish(z.string()),
    verified: z.optional(z.boolean()),
    created: z.string(),
  }),
);

/** A login item as the domain's login; MalformedItemError when it is not one. */
export function readLogin(item: Record<string, unknown>): Login {
  const stored = decodeLogin(item);
  return {
    email: stored.email,
    userId: stored.userId,
    passwordHash: stored.passwordHash ?? null,
    verified: stored.verified === true,
    created: stored.created,
  };
}
