import * as z from 'zod/mini';
import type { WebAuthnChallenge } from '../../../core/identity/identity';
import { keys, TTL_ATTRIBUTE } from '../keys';
import { itemCodec } from './codec';

/** A WebAuthn challenge, taken once, expiring through the table's TTL. */
export function webAuthnChallengeItem(challenge: WebAuthnChallenge) {
  return {
    ...keys.webAuthnChallenge(challenge.challenge),
    type: 'WebAuthnChallenge',
    ...challenge,
    [TTL_ATTRIBUTE]: challenge.expiresAt,
  };
}

const decodeChallenge = itemCodec('WebAuthnChallenge', () =>
  z.object({
    challenge: z.string(),
    purpose: z.enum(['register', 'sign-in']),
    userId: z.nullish(z.string()),
    expiresAt: z.number(),
  }),
);

/** A challenge item as the domain's challenge; MalformedItemError when it is not one. */
export function readWebAuthnChallenge(item: Record<string, unknown>): WebAuthnChallenge {
  const { challenge, purpose, userId, expiresAt } = decodeChallenge(item);
  return { challenge, purpose, userId: userId ?? null, expiresAt };
}
