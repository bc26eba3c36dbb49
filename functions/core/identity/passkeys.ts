import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Passkey } from './identity';

/**
 * Passkeys (WebAuthn) through @simplewebauthn/server: discoverable credentials, so a passkey alone
 * signs in (the authenticator returns the user's id as its user handle). The relying party is the
 * service's own host; challenges are stored by the caller and used once.
 */

export interface RelyingParty {
  readonly id: string;
  readonly origin: string;
}

export function relyingParty(baseUrl: string): RelyingParty {
  const url = new URL(baseUrl);
  return { id: url.hostname, origin: url.origin };
}

export function registrationOptions(
  rp: RelyingParty,
  user: { id: string; email: string },
  existing: readonly Passkey[],
) {
  return generateRegistrationOptions({
    rpName: 'Gleaner',
    rpID: rp.id,
    userName: user.email,
    userID: new Uint8Array(Buffer.from(user.id, 'utf8')),
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: [...passkey.transports] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

export function signInOptions(rp: RelyingParty) {
  return generateAuthenticationOptions({ rpID: rp.id, userVerification: 'preferred', allowCredentials: [] });
}

/** The challenge a browser's response answers (from its client data), to look the stored one up by. */
export function responseChallenge(response: { response?: { clientDataJSON?: unknown } }): string | null {
  try {
    const clientData = JSON.parse(Buffer.from(String(response.response?.clientDataJSON), 'base64url').toString('utf8'));
    return typeof clientData.challenge === 'string' ? clientData.challenge : null;
  } catch {
    return null;
  }
}

/** The new passkey, or null when the response does not verify. */
export async function verifyRegistration(
  rp: RelyingParty,
  input: { userId: string; label: string; response: RegistrationResponseJSON; challenge: string; now: Date },
): Promise<Passkey | null> {
  try {
    const result = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
    if (!result.verified) return null;
    const { credential } = result.registrationInfo;
    return {
      userId: input.userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      label: input.label,
      created: input.now.toISOString(),
      lastUsed: null,
    };
  } catch {
    return null;
  }
}

/** The user id a sign-in response names (its user handle), or null. */
export function responseUserId(response: AuthenticationResponseJSON): string | null {
  if (!response.response?.userHandle) return null;
  try {
    return Buffer.from(response.response.userHandle, 'base64url').toString('utf8');
  } catch {
    return null;
  }
}

/** The authenticator's new signature counter when the response verifies against the stored passkey, else null. */
export async function verifySignIn(
  rp: RelyingParty,
  input: { passkey: Passkey; response: AuthenticationResponseJSON; challenge: string },
): Promise<number | null> {
  try {
    const result = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      credential: {
        id: input.passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(input.passkey.publicKey, 'base64url')),
        counter: input.passkey.counter,
        transports: [...input.passkey.transports] as never,
      },
    });
    return result.verified ? result.authenticationInfo.newCounter : null;
  } catch {
    return null;
  }
}
