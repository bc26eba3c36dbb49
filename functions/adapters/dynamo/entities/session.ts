import * as z from 'zod/mini';
import type { Session } from '../../../core/identity/session';
import { keys, TTL_ATTRIBUTE } from '../keys';
import { itemCodec } from './codec';

/** A browser session, keyed by its id's hash, listed in its user's AUTH index, expiring through the table's TTL. */
export function sessionItem(session: Session) {
  return {
    ...keys.session(session.idHash),
    ...keys.authIndex(session.userId, 'SESSION', session.idHash),
    type: 'Session',
    ...session,
    [TTL_ATTRIBUTE]: session.expiresAt,
  };
}

const decodeSession = itemCodec('Session', () =>
  z.object({
    idHash: z.string(),
    userId: z.string(),
    csrfToken: z.string(),
    created: z.string(),
    expiresAt: z.number(),
  }),
);

/** A session item as the domain's session; MalformedItemError when it is not one. */
export function readSession(item: Record<string, unknown>): Session {
  const { idHash, userId, csrfToken, created, expiresAt } = decodeSession(item);
  return { idHash, userId, csrfToken, created, expiresAt };
}
