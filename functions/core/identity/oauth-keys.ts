import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * The authorization server's secrets: the JWKS it signs ID tokens with (access tokens are opaque,
 * stored in the table) and the keys its cookies are signed with. Generated once, then kept (a file
 * locally, Secrets Manager on AWS).
 */
export interface OAuthKeys {
  readonly jwks: { readonly keys: readonly Record<string, unknown>[] };
  readonly cookieKeys: readonly string[];
}

/** An RS256 key (OpenID Connect's default algorithm, which every client accepts) and an ES256 one. */
export function generateOAuthKeys(): OAuthKeys {
  const signingKey = (pair: ReturnType<typeof generateKeyPairSync>, alg: string) => ({
    ...pair.privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    alg,
    use: 'sig',
  });
  return {
    jwks: {
      keys: [
        signingKey(generateKeyPairSync('rsa', { modulusLength: 2048 }), 'RS256'),
        signingKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }), 'ES256'),
      ],
    },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
}

/** Keys as stored, or null when `text` holds none (an empty secret, a placeholder). */
export function parseOAuthKeys(text: string | undefined): OAuthKeys | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<OAuthKeys>;
    return Array.isArray(value.jwks?.keys) && value.jwks.keys.length && Array.isArray(value.cookieKeys)
      ? (value as OAuthKeys)
      : null;
  } catch {
    return null;
  }
}
