import * as z from 'zod/mini';
import type { Passkey } from '../../../core/identity/identity';
import { keys } from '../keys';
import { itemCodec } from './codec';

/** A passkey, in its user's partition by its credential id. */
export function passkeyItem(passkey: Passkey) {
  return { ...keys.passkey(passkey.userId, passkey.credentialId), type: 'Passkey', ...passkey };
}

const decodePasskey = itemCodec('Passkey', () =>
  z.object({
    userId: z.string(),
    credentialId: z.string(),
    publicKey: z.string(),
    counter: z.optional(z.number()),
    transports: z.optional(z.array(z.string())),
    label: z.optional(z.string()),
    created: z.string(),
    lastUsed: z.nullish(z.string()),
  }),
);

/** A passkey item as the domain's passkey; MalformedItemError when it is not one. */
export function readPasskey(item: Record<string, unknown>): Passkey {
  const stored = decodePasskey(item);
  return {
    userId: stored.userId,
    credentialId: stored.credentialId,
    publicKey: stored.publicKey,
    counter: stored.counter ?? 0,
    transports: stored.transports ?? [],
    label: stored.label ?? 'Passkey',
    created: stored.created,
    lastUsed: stored.lastUsed ?? null,
  };
}
