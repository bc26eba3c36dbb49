import * as z from 'zod/mini';
import type { AccessToken } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * A personal access token: its item, keyed by the token's hash (the secret is never stored) and
 * found by its id through the lookup index, and the reference in its user's partition that names it
 * (its id and hash), so a user's tokens are listed and deleted with the account.
 */
export function accessTokenItem(token: AccessToken, tokenHash: string) {
  return { ...keys.token(tokenHash), ...keys.tokenIdIndex(token.id), type: 'AccessToken', ...token };
}

export function userTokenItem(token: Pick<AccessToken, 'id' | 'userId'>, tokenHash: string) {
  return { ...keys.userToken(token.userId, token.id), type: 'UserToken', tokenId: token.id, tokenHash };
}

/** The partition key of a token's item, up to its hash. */
const TOKEN_KEY_PREFIX = keys.token('').pk;

const decodeAccessToken = itemCodec('AccessToken', () =>
  z.object({
    pk: z.string().check(z.startsWith(TOKEN_KEY_PREFIX)),
    id: z.string(),
    userId: z.string(),
    label: z.nullish(z.string()),
    revoked: z.optional(z.boolean()),
    created: z.string(),
    expires: z.nullish(z.string()),
    lastUsed: z.nullish(z.string()),
    lastUsedAgent: z.nullish(z.string()),
  }),
);

/** A token item as the domain's token; MalformedItemError when it is not one. */
export function readAccessToken(item: Record<string, unknown>): AccessToken {
  return readStoredToken(item).token;
}

/** A token item as the token and the hash it is stored under. */
export function readStoredToken(item: Record<string, unknown>): { token: AccessToken; tokenHash: string } {
  const stored = decodeAccessToken(item);
  return {
    token: {
      id: stored.id,
      userId: stored.userId,
      label: stored.label ?? null,
      revoked: stored.revoked === true,
      created: stored.created,
      expires: stored.expires ?? null,
      lastUsed: stored.lastUsed ?? null,
      lastUsedAgent: stored.lastUsedAgent ?? null,
    },
    tokenHash: stored.pk.slice(TOKEN_KEY_PREFIX.length),
  };
}

const decodeUserToken = itemCodec('UserToken', () => z.object({ tokenId: z.string(), tokenHash: z.string() }));

/** The token a user's reference names: its id and hash. */
export function readUserToken(item: Record<string, unknown>): { tokenId: string; tokenHash: string } {
  const { tokenId, tokenHash } = decodeUserToken(item);
  return { tokenId, tokenHash };
}
