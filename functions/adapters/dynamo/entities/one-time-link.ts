import * as z from 'zod/mini';
import type { OneTimeLink } from '../../../core/identity/identity';
import { keys, TTL_ATTRIBUTE } from '../keys';
import { itemCodec } from './codec';

/**
 * A one-time link (email verification, password reset, invitation), keyed by its secret's hash,
 * listed in its user's AUTH index, expiring through the table's TTL.
 */
export function oneTimeLinkItem(link: OneTimeLink) {
  return {
    ...keys.oneTimeLink(link.tokenHash),
    ...keys.authIndex(link.userId, 'ONETIME', link.tokenHash),
    type: 'OneTimeLink',
    ...link,
    [TTL_ATTRIBUTE]: link.expiresAt,
  };
}

const decodeOneTimeLink = itemCodec('OneTimeLink', () =>
  z.object({
    tokenHash: z.string(),
    purpose: z.enum(['verify-email', 'reset-password', 'invite']),
    userId: z.string(),
    email: z.string(),
    expiresAt: z.number(),
  }),
);

/** A link item as the domain's one-time link; MalformedItemError when it is not one. */
export function readOneTimeLink(item: Record<string, unknown>): OneTimeLink {
  const { tokenHash, purpose, userId, email, expiresAt } = decodeOneTimeLink(item);
  return { tokenHash, purpose, userId, email, expiresAt };
}
