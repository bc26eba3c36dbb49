import * as z from 'zod/mini';
import type { ConnectedGrant } from '../../../core/identity/account-flows';
import { keys, TTL_ATTRIBUTE } from '../keys';
import { itemCodec } from './codec';

/** What oidc-provider stores for each artifact (a token, code, grant, interaction, client, session). */
export type OAuthPayload = Record<string, unknown> & {
  readonly grantId?: string;
  readonly uid?: string;
  readonly accountId?: string;
  readonly consumed?: number;
  readonly exp?: number;
};

/**
 * An oidc-provider artifact: one item per artifact, keyed by model name and id (for a token or code,
 * the hash of its id), expiring at `expiresAt` (epoch seconds) through the table's TTL. Its index
 * entry: a grant in its user's AUTH index (Connected apps, account deletion), what was issued under a
 * grant under the grant (revoking it), a login session by its uid.
 */
export function oauthArtifactItem(model: string, id: string, payload: OAuthPayload, expiresAt?: number) {
  const index =
    model === 'Grant' && payload.accountId
      ? keys.authIndex(payload.accountId, 'GRANT', id)
      : payload.grantId
        ? keys.oauthGrantIndex(payload.grantId, model, id)
        : model === 'Session' && payload.uid
          ? keys.oauthUidIndex(payload.uid)
          : {};
  return {
    ...keys.oauthArtifact(model, id),
    ...index,
    type: `OAuth${model}`,
    model,
    id,
    payload,
    ...(expiresAt ? { [TTL_ATTRIBUTE]: expiresAt } : {}),
  };
}

/** Names an OAuth login session in its user's partition, so deleting the account finds it; expires with it. */
export function oauthLoginRefItem(userId: string, sessionId: string, expiresAt?: number) {
  return {
    ...keys.oauthLoginRef(userId, sessionId),
    type: 'OAuthLoginRef',
    sessionId,
    ...(expiresAt ? { [TTL_ATTRIBUTE]: expiresAt } : {}),
  };
}

/** The payload attributes the adapter itself reads; oidc-provider's own are its to read. */
const payloadSchema = () =>
  z.looseObject({
    grantId: z.optional(z.string()),
    uid: z.optional(z.string()),
    accountId: z.optional(z.string()),
    consumed: z.optional(z.number()),
    exp: z.optional(z.number()),
  });

const decodeArtifact = itemCodec('OAuth artifact', () =>
  z.object({ id: z.string(), payload: payloadSchema(), [TTL_ATTRIBUTE]: z.optional(z.number()) }),
);

/** An artifact item: its stored id, its payload and when it expires (null: never); MalformedItemError when it is not one. */
export function readOAuthArtifact(item: Record<string, unknown>): {
  id: string;
  payload: OAuthPayload;
  expiry: number | null;
} {
  const stored = decodeArtifact(item);
  return { id: stored.id, payload: stored.payload, expiry: stored[TTL_ATTRIBUTE] ?? null };
}

const decodeGrant = itemCodec('OAuth grant', () =>
  z.object({
    id: z.string(),
    payload: z.object({
      clientId: z.string(),
      resources: z.optional(z.record(z.string(), z.string())),
      openid: z.optional(z.object({ scope: z.optional(z.string()) })),
      iat: z.optional(z.number()),
    }),
  }),
);

/** A grant item as Connected apps lists it: its client, the scopes of every resource and OpenID's, when granted. */
export function readConnectedGrant(item: Record<string, unknown>): ConnectedGrant {
  const { id, payload } = decodeGrant(item);
  const scopes = [...Object.values(payload.resources ?? {}), payload.openid?.scope ?? ''].flatMap((scope) =>
    scope.split(' '),
  );
  return {
    grantId: id,
    clientId: payload.clientId,
    scopes: [...new Set(scopes.filter(Boolean))],
    granted: payload.iat === undefined ? null : new Date(payload.iat * 1000).toISOString(),
  };
}

const decodeLoginRef = itemCodec('OAuthLoginRef', () => z.object({ sessionId: z.string() }));

/** The login session a reference names. */
export function readOAuthLoginRef(item: Record<string, unknown>): string {
  return decodeLoginRef(item).sessionId;
}
