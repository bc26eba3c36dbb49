import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A passkey authenticator in software, for the unit tests of the passkey flows: it answers the
 * options the server hands out as a browser with a platform authenticator would (P-256 keys, "none"
 * attestation, discoverable credentials with the user's id as their user handle), so
 * @simplewebauthn/server verifies real signatures. The browser tests use Chromium's virtual one.
 */
export class SoftwareAuthenticator {
  private readonly credentials = new Map<string, { privateKey: KeyObject; userHandle: string; counter: number }>();

  /** `origin`: the page the browser runs the ceremony on (its host is the relying party). */
  constructor(private readonly origin: string) {}

  /** navigator.credentials.create(): a new credential for the user the options name. */
  create(options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON {
    const id = randomBytes(16).toString('base64url');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.credentials.set(id, { privateKey, userHandle: options.user.id, counter: 0 });
    const jwk = publicKey.export({ format: 'jwk' });
    const cosePublicKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idBytes = Buffer.from(id, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(idBytes.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, idBytes, cosePublicKey]); // AAGUID of zeros
    const authData = this.authenticatorData(options.rp.id ?? new URL(this.origin).hostname, 0x45, 0, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): an assertion of the credential `id` (which the person picks). */
  get(options: PublicKeyCredentialRequestOptionsJSON, id: string): AuthenticationResponseJSON {
    const credential = this.credentials.get(id);
    if (!credential) throw new Error(`No credential ${id}`);
    credential.counter += 1;
    const authData = this.authenticatorData(options.rpId ?? new URL(this.origin).hostname, 0x05, credential.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signed = Buffer.concat([
      authData,
      createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest(),
    ]);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: sign('sha256', signed, credential.privateKey).toString('base64url'),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** The relying party's hash, the flags (user present and verified, credential data attached), the counter. */
  private authenticatorData(rpId: string, flags: number, counter: number, attested = Buffer.alloc(0)): Buffer {
    const head = Buffer.alloc(5);
    head.writeUInt8(flags, 0);
    head.writeUInt32BE(counter, 1);
    return Buffer.concat([createHash('sha256').update(rpId).digest(), head, attested]);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): string {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false })).toString(
      'base64url',
    );
  }
}
