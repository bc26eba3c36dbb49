import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { EmailTakenError, type IdentityStore } from '../../core/identity/account-flows';
import type { Login, OneTimeLink, OneTimePurpose, Passkey, WebAuthnChallenge } from '../../core/identity/identity';
import type { Session } from '../../core/identity/session';
import type { User } from '../../core/model';
import { conditionalWrite, TransactionSteps, writtenUnlessConditionFails } from './conditional-write';
import { type FlashSlot, flashItem, readFlash } from './entities/flash';
import { loginItem, readLogin } from './entities/login';
import { oneTimeLinkItem, readOneTimeLink } from './entities/one-time-link';
import { passkeyItem, readPasskey } from './entities/passkey';
import { readSession, sessionItem } from './entities/session';
import { readUserEmail, userItem } from './entities/user';
import { readWebAuthnChallenge, webAuthnChallengeItem } from './entities/webauthn-challenge';
import { type AuthEntryKind, keys, LOOKUP_INDEX } from './keys';
import { queryAll } from './query-all';

/**
 * How people sign in: email logins (with the password hash), browser sessions, one-time links
 * (email verification, password reset, invitations), passkeys and their WebAuthn challenges. Every
 * item but passkeys (in the user's partition) is also in the user's `AUTH` index partition, so
 * "sign out everywhere" and deleting the account find them all.
 */
export class DynamoIdentityStore implements IdentityStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** A new user with an email login, in one transaction; EmailTakenError when the address has a login. */
  async createUserWithLogin(user: User, login: Login): Promise<void> {
    const steps = new TransactionSteps<'user' | 'login'>()
      .add('user', {
        Put: {
          TableName: this.tableName,
          Item: userItem(user, login.email),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })
      .add('login', this.loginPut(login));
    const outcome = await this.transact(steps);
    if (outcome.written) return;
    if (steps.refused('login', outcome.failed)) throw new EmailTakenError(login.email);
    throw new Error(`user ${user.id} exists already`);
  }

  /** Gives an existing user (made by an operator) an email login; EmailTakenError when the address has one. */
  async addLogin(login: Login): Promise<void> {
    const steps = new TransactionSteps<'user' | 'login'>()
      .add('user', {
        Update: {
          TableName: this.tableName,
          Key: keys.user(login.userId),
          UpdateExpression: 'SET email = :email',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(email)',
          ExpressionAttributeValues: { ':email': login.email },
        },
      })
      .add('login', this.loginPut(login));
    const outcome = await this.transact(steps);
    if (outcome.written) return;
    if (steps.refused('user', outcome.failed))
      throw new Error(`user ${login.userId} does not exist or already has an email login`);
    throw new EmailTakenError(login.email);
  }

  private transact(steps: TransactionSteps<string>) {
    return conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: steps.actions })));
  }

  private loginPut(login: Login) {
    return {
      Put: {
        TableName: this.tableName,
        Item: loginItem(login),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  async getLogin(email: string): Promise<Login | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.login(email) }));
    return Item ? readLogin(Item) : null;
  }

  /** The user's email login (the user item names its address). */
  async getLoginOfUser(userId: string): Promise<Login | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.user(userId), ProjectionExpression: 'email' }),
    );
    const email = Item ? readUserEmail(Item) : null;
    return email ? this.getLogin(email) : null;
  }

  async setPassword(email: string, passwordHash: string, markVerified: boolean): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.login(email),
        UpdateExpression: markVerified ? 'SET passwordHash = :hash, verified = :yes' : 'SET passwordHash = :hash',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':hash': passwordHash, ...(markVerified ? { ':yes': true } : {}) },
      }),
    );
  }

  async markVerified(email: string, userId: string): Promise<boolean> {
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.login(email),
          UpdateExpression: 'SET verified = :yes',
          ConditionExpression: 'userId = :user',
          ExpressionAttributeValues: { ':yes': true, ':user': userId },
        }),
      ),
    );
  }

  /** Moves a login to a new address (unverified until its link is followed); EmailTakenError when taken. */
  async changeEmail(current: Login, newEmail: string): Promise<void> {
    const moved: Login = { ...current, email: newEmail, verified: false };
    const steps = new TransactionSteps<'old-login' | 'new-login' | 'user'>()
      .add('old-login', {
        Delete: {
          TableName: this.tableName,
          Key: keys.login(current.email),
          ConditionExpression: 'userId = :user',
          ExpressionAttributeValues: { ':user': current.userId },
        },
      })
      .add('new-login', this.loginPut(moved))
      .add('user', {
        Update: {
          TableName: this.tableName,
          Key: keys.user(current.userId),
          UpdateExpression: 'SET email = :email',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':email': newEmail },
        },
      });
    const outcome = await this.transact(steps);
    if (outcome.written) return;
    if (steps.refused('new-login', outcome.failed)) throw new EmailTakenError(newEmail);
    throw new Error(`the login ${current.email} of user ${current.userId} is no longer there to move`);
  }

  async putSession(session: Session): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: sessionItem(session),
      }),
    );
  }

  async getSession(idHash: string): Promise<Session | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.session(idHash) }));
    return Item ? readSession(Item) : null;
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keys.session(idHash) }));
  }

  /** Ends every session of the user but `keepIdHash` (after a password change, the one that changed it). */
  async deleteSessionsOf(userId: string, keepIdHash?: string): Promise<number> {
    const sessions = (await this.authItems(userId, 'SESSION')).map(readSession);
    const ended = sessions.filter((session) => session.idHash !== keepIdHash);
    await Promise.all(ended.map((session) => this.deleteSession(session.idHash)));
    return ended.length;
  }

  async putOneTimeLink(link: OneTimeLink): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: oneTimeLinkItem(link),
      }),
    );
  }

  /** Reads a one-time link without using it (a page that shows the set-password form). */
  async getOneTimeLink(tokenHash: string): Promise<OneTimeLink | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.oneTimeLink(tokenHash) }),
    );
    return Item ? readOneTimeLink(Item) : null;
  }

  /**
   * Uses a one-time link up: it is deleted, so a second use (a replay, a race) finds nothing. Using
   * one password link (a reset or an invitation) ends every other one of the user's too: an older
   * link left in a mailbox cannot set the password again.
   */
  async consumeOneTimeLink(tokenHash: string): Promise<OneTimeLink | null> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.oneTimeLink(tokenHash), ReturnValues: 'ALL_OLD' }),
    );
    if (!Attributes) return null;
    const link = readOneTimeLink(Attributes);
    if (PASSWORD_LINKS.has(link.purpose)) {
      const others = (await this.authItems(link.userId, 'ONETIME'))
        .map(readOneTimeLink)
        .filter((other) => PASSWORD_LINKS.has(other.purpose));
      await Promise.all(
        others.map((other) =>
          this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keys.oneTimeLink(other.tokenHash) })),
        ),
      );
    }
    return link;
  }

  async putChallenge(challenge: WebAuthnChallenge): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: webAuthnChallengeItem(challenge),
      }),
    );
  }

  /** Takes a challenge (once): null when unknown, used or expired. */
  async consumeChallenge(challenge: string, now: Date): Promise<WebAuthnChallenge | null> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.webAuthnChallenge(challenge),
        ReturnValues: 'ALL_OLD',
      }),
    );
    const taken = Attributes ? readWebAuthnChallenge(Attributes) : null;
    return taken && taken.expiresAt > now.getTime() / 1000 ? taken : null;
  }

  /**
   * Keeps `value` for the session's next page of `kind` (post/redirect/get): a secret shown once
   * travels through here, never through the URL. Expires at `expiresAt` (epoch seconds).
   */
  async putFlash(flash: FlashSlot & { expiresAt: number }, value: unknown) {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: flashItem(flash, value) }));
  }

  /** Takes the session's flash of `kind` (once, by deleting it): null when there is none or it expired. */
  async takeFlash(flash: FlashSlot, now: Date): Promise<unknown> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.flash(flash.userId, flash.kind, flash.sessionIdHash),
        ReturnValues: 'ALL_OLD',
      }),
    );
    const taken = Attributes ? readFlash(Attributes) : null;
    return taken && taken.expiresAt > now.getTime() / 1000 ? taken.value : null;
  }

  async putPasskey(passkey: Passkey): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: passkeyItem(passkey),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getPasskey(userId: string, credentialId: string): Promise<Passkey | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.passkey(userId, credentialId) }),
    );
    return Item ? readPasskey(Item) : null;
  }

  async listPasskeys(userId: string): Promise<Passkey[]> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.user(userId).pk, ':prefix': keys.passkey(userId, '').sk },
      }),
    );
    return (Items ?? []).map(readPasskey);
  }

  async recordPasskeyUse(passkey: Passkey, counter: number, now: Date): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.passkey(passkey.userId, passkey.credentialId),
        UpdateExpression: 'SET #counter = :counter, lastUsed = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':counter': counter, ':now': now.toISOString() },
      }),
    );
  }

  async deletePasskey(userId: string, credentialId: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keys.passkey(userId, credentialId) }));
  }

  /** The user's items of `kind` in the AUTH index. */
  private async authItems(userId: string, kind: AuthEntryKind): Promise<Record<string, unknown>[]> {
    const entries = keys.authIndex(userId, kind);
    return queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': entries.gsi1pk, ':prefix': entries.gsi1sk },
    });
  }
}

/** The links that set a password. */
const PASSWORD_LINKS = new Set<OneTimePurpose>(['reset-password', 'invite']);
