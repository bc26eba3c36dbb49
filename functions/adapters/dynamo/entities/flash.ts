import * as z from 'zod/mini';
import { keys, TTL_ATTRIBUTE } from '../keys';
import { itemCodec } from './codec';

/** Names a session's flash of one kind: a secret a form post minted, for the one page after its redirect. */
export interface FlashSlot {
  readonly userId: string;
  readonly sessionIdHash: string;
  readonly kind: string;
}

/** A flash item: the value as JSON, in the user's partition (deleting the account deletes it), expiring at `expiresAt`. */
export function flashItem(flash: FlashSlot & { readonly expiresAt: number }, value: unknown) {
  return {
    ...keys.flash(flash.userId, flash.kind, flash.sessionIdHash),
    type: 'Flash',
    value: JSON.stringify(value),
    [TTL_ATTRIBUTE]: flash.expiresAt,
  };
}

const decodeFlash = itemCodec('Flash', () =>
  z.object({
    value: z.pipe(
      z.string(),
      z.transform((text, context): unknown => {
        try {
          return JSON.parse(text);
        } catch {
          context.issues.push({ code: 'custom', message: 'Invalid JSON', input: text });
          return z.NEVER;
        }
      }),
    ),
    [TTL_ATTRIBUTE]: z.number(),
  }),
);

/** A flash item's value and when it expires (epoch seconds); MalformedItemError when it is not one. */
export function readFlash(item: Record<string, unknown>): { value: unknown; expiresAt: number } {
  const stored = decodeFlash(item);
  return { value: stored.value, expiresAt: stored[TTL_ATTRIBUTE] };
}
