/** The records that let a person sign in, as the domain sees them (storage keys are the adapter's). */

/** An email-and-password login of a user; the password is unset for an invited user until the link is used. */
export interface Login {
  /** Normalised (see email.ts). */
  readonly email: string;
  readonly userId: string;
  readonly passwordHash: string | null;
  readonly verified: boolean;
  readonly created: string;
}

/** What a one-time link does when followed. */
export type OneTimePurpose = 'verify-email' | 'reset-password' | 'invite';

export interface OneTimeLink {
  /** SHA-256 of the secret in the link (the secret itself is only in the mail). */
  readonly tokenHash: string;
  readonly purpose: OneTimePurpose;
  readonly userId: string;
  /** The address the link was sent to: a verification only verifies that one. */
  readonly email: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** How long each kind of link works. */
export const ONE_TIME_LINK_SECONDS: Record<OneTimePurpose, number> = {
  'verify-email': 7 * 24 * 3600,
  'reset-password': 3600,
  invite: 7 * 24 * 3600,
};

export function oneTimeLinkLive(link: OneTimeLink, now: Date): boolean {
  return link.expiresAt > now.getTime() / 1000;
}

/** A WebAuthn credential registered to a user. */
export interface Passkey {
  readonly userId: string;
  /** base64url, as WebAuthn names it. */
  readonly credentialId: string;
  /** COSE public key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly label: string;
  readonly created: string;
  readonly lastUsed: string | null;
}

/** A WebAuthn challenge handed to a browser, usable once within a few minutes. */
export interface WebAuthnChallenge {
  readonly challenge: string;
  readonly purpose: 'register' | 'sign-in';
  /** The signed-in user registering a passkey; null for a sign-in. */
  readonly userId: string | null;
  readonly expiresAt: number;
}

export const WEBAUTHN_CHALLENGE_SECONDS = 300;
