import { describe, expect, it } from 'vitest';
import { readBookmark } from '../../functions/adapters/dynamo/entities/bookmark';
import { itemBytes, MalformedItemError } from '../../functions/adapters/dynamo/entities/codec';
import { readFeed } from '../../functions/adapters/dynamo/entities/feed';
import { flashItem, readFlash } from '../../functions/adapters/dynamo/entities/flash';
import { readHighlight } from '../../functions/adapters/dynamo/entities/highlight';
import { noteLinkItem, noteNameItem, readNoteLink, readNoteName } from '../../functions/adapters/dynamo/entities/link';
import { loginItem, readLogin } from '../../functions/adapters/dynamo/entities/login';
import { noteItem, readNote } from '../../functions/adapters/dynamo/entities/note';
import {
  oauthArtifactItem,
  oauthLoginRefItem,
  readConnectedGrant,
  readOAuthArtifact,
  readOAuthLoginRef,
} from '../../functions/adapters/dynamo/entities/oauth';
import { oneTimeLinkItem, readOneTimeLink } from '../../functions/adapters/dynamo/entities/one-time-link';
import { passkeyItem, readPasskey } from '../../functions/adapters/dynamo/entities/passkey';
import { readReviewCard } from '../../functions/adapters/dynamo/entities/review-card';
import { readReviewDay, reviewDayItem } from '../../functions/adapters/dynamo/entities/review-day';
import { readReviewLogEntry, reviewLogItem } from '../../functions/adapters/dynamo/entities/review-log';
import * as reviewRecords from '../../functions/adapters/dynamo/entities/review-settings';
import { readSession, sessionItem } from '../../functions/adapters/dynamo/entities/session';
import {
  accessTokenItem,
  readAccessToken,
  readStoredToken,
  readUserToken,
  userTokenItem,
} from '../../functions/adapters/dynamo/entities/token';
import { readUser, readUserEmail, userItem } from '../../functions/adapters/dynamo/entities/user';
import {
  readWebAuthnChallenge,
  webAuthnChallengeItem,
} from '../../functions/adapters/dynamo/entities/webauthn-challenge';
import { keys } from '../../functions/adapters/dynamo/keys';
import type { Passkey } from '../../functions/core/identity/identity';
import type { NoteLink } from '../../functions/core/links/links';
import type { AccessToken, Note, User } from '../../functions/core/model';
import { newCard, type ReviewCard, type ReviewLogEntry } from '../../functions/core/review/card';
import { DEFAULT_REVIEW_SETTINGS } from '../../functions/core/review/settings';
import type { ReviewDay } from '../../functions/core/review/use-cases';
import { APPEND_RECORD_BYTES } from '../../functions/core/save/note-body';

const note: Note = {
  id: 'n1',
  userId: 'u1',
  bookmarkId: 'b1',
  url: 'https://example.com/',
  title: 'Example',
  body: 'Source: [Example](https://example.com/)',
  comment: null,
  tags: ['a', 'b'],
  lastHighlight: null,
  created: '2026-01-01T00:00:00.000Z',
  updated: '2026-01-01T00:00:00.000Z',
  version: 1,
  archivedAt: null,
  starredAt: null,
};

describe('entity codecs', () => {
  it('read back the note they write, with its appends joined to the body and the bytes it takes', () => {
    const item = {
      ...noteItem(note),
      appended: [{ id: 'x', saved: note.created, text: '> more' }],
      appendIds: new Set(['x']),
    };
    const read = readNote(item);
    expect(read).toMatchObject({ ...note, body: `${note.body}\n\n> more` });
    expect(read.storedBytes).toBe(itemBytes(item));
    // The measure is not written back: the item holds the note's fields, not what a read measured.
    expect(noteItem(read)).not.toHaveProperty('storedBytes');
  });

  it('read legacy notes as the store always did (no tags, version or update time yet)', () => {
    const { tags: _tags, version: _version, updated: _updated, ...legacy } = noteItem(note);
    expect(readNote(legacy)).toMatchObject({ tags: [], version: 0, updated: null });
  });

  it('refuse a malformed item with an error naming its key and every wrong attribute, never undefined fields', () => {
    const malformed = { ...noteItem(note), tags: 'a,b', title: undefined };
    expect(() => readNote(malformed)).toThrow(MalformedItemError);
    expect(() => readNote(malformed)).toThrow(/NOTE#n1 NOTE is malformed: .*tags.*title|title.*tags/);
    expect(() => readBookmark({ pk: 'BOOKMARK#b', sk: 'BOOKMARK', id: 'b', userId: 'u' })).toThrow(
      /Bookmark item BOOKMARK#b BOOKMARK is malformed: noteId/,
    );
    expect(() => readHighlight({ pk: 'NOTE#n', sk: 'HL#1', id: 'h', noteId: 'n', userId: 'u', saved: 'x' })).toThrow(
      /quote/,
    );
    expect(() =>
      readFeed({ pk: 'FEED#f', sk: 'FEED', id: 'f', userId: 'u', title: 't', match: 'some', sharing: 'public' }),
    ).toThrow(/match/);
  });

  it("keep within NoteBody's allowance for what an append keeps beside its text", () => {
    const entry = (id: string) => ({ id, saved: '2026-11-28T02:30:00.000Z', text: '> quoted' });
    const one = { ...noteItem(note), appended: [entry(crypto.randomUUID())], appendIds: new Set(['a']) };
    const id = crypto.randomUUID();
    const two = { ...one, appended: [...one.appended, entry(id)], appendIds: new Set(['a', id]) };
    // The body's text grows by the entry's text and the blank line before it; the rest is the record.
    const record = itemBytes(two) - itemBytes(one) - Buffer.byteLength('\n\n> quoted');
    expect(record).toBeLessThanOrEqual(APPEND_RECORD_BYTES);
    expect(record).toBeGreaterThan(APPEND_RECORD_BYTES / 2);
  });

  it("count an item's bytes as DynamoDB does: names and UTF-8 values, numbers by digits, lists and maps with their overhead", () => {
    expect(itemBytes({ ab: 'é' })).toBe(2 + 2);
    expect(itemBytes({ n: 12345 })).toBe(1 + 4);
    expect(itemBytes({ l: ['ab', 'c'] })).toBe(1 + 3 + (2 + 1) + (1 + 1));
    expect(itemBytes({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
  });
});

const user: User = {
  id: 'u1',
  name: 'Ada',
  displayName: 'Ada L.',
  plan: 'free',
  noteCap: 1000,
  noteCount: 3,
  created: '2026-01-01T00:00:00.000Z',
};
const token: AccessToken = {
  id: 't1',
  userId: 'u1',
  label: 'laptop',
  revoked: false,
  created: '2026-01-01T00:00:00.000Z',
  expires: null,
  lastUsed: null,
  lastUsedAgent: null,
};
const schedule = newCard('u1', 'h1', new Date('2026-01-01T00:00:00.000Z')).schedule;
const card: ReviewCard = { userId: 'u1', highlightId: 'h1', schedule, discarded: false, skips: 2, version: 3 };
const logEntry: ReviewLogEntry = {
  userId: 'u1',
  highlightId: 'h1',
  rating: 'good',
  reviewed: '2026-01-02T00:00:00.000Z',
  previous: null,
  next: schedule,
};
const day: ReviewDay = {
  date: '2026-01-02',
  items: [{ highlightId: 'h1', noteId: 'n1', saved: '2026-01-01T00:00:00.000Z', reason: 'due' }],
  rated: ['h1'],
  created: '2026-01-02T00:00:00.000Z',
  skipsCounted: false,
};
const passkey: Passkey = {
  userId: 'u1',
  credentialId: 'cred',
  publicKey: 'key',
  counter: 4,
  transports: ['usb'],
  label: 'Yubikey',
  created: user.created,
  lastUsed: null,
};
const link: NoteLink = { kind: 'title', key: 'title:other', target: 'Other', context: 'See [[Other]].' };

/** Each entity's item as its writer writes it, what its reader reads back, and an attribute that breaks it. */
const entities = [
  { entity: 'User', item: userItem(user, 'ada@example.com'), read: readUser, back: user, breaks: { plan: 'gold' } },
  {
    entity: 'User',
    item: userItem(user, 'ada@example.com'),
    read: readUserEmail,
    back: 'ada@example.com',
    breaks: { email: 7 },
  },
  {
    entity: 'AccessToken',
    item: accessTokenItem(token, 'hash'),
    read: readStoredToken,
    back: { token, tokenHash: 'hash' },
    breaks: { revoked: 'no' },
  },
  {
    entity: 'AccessToken',
    item: accessTokenItem(token, 'hash'),
    read: readAccessToken,
    back: token,
    breaks: { pk: 'USER#u1' },
  },
  {
    entity: 'UserToken',
    item: userTokenItem(token, 'hash'),
    read: readUserToken,
    back: { tokenId: 't1', tokenHash: 'hash' },
    breaks: { tokenHash: null },
  },
  {
    entity: 'Login',
    item: loginItem({
      email: 'ada@example.com',
      userId: 'u1',
      passwordHash: null,
      verified: true,
      created: user.created,
    }),
    read: readLogin,
    back: { email: 'ada@example.com', userId: 'u1', passwordHash: null, verified: true, created: user.created },
    breaks: { userId: undefined },
  },
  {
    entity: 'Session',
    item: sessionItem({ idHash: 'sh', userId: 'u1', csrfToken: 'c', created: user.created, expiresAt: 2e9 }),
    read: readSession,
    back: { idHash: 'sh', userId: 'u1', csrfToken: 'c', created: user.created, expiresAt: 2e9 },
    breaks: { expiresAt: '2000000000' },
  },
  {
    entity: 'OneTimeLink',
    item: oneTimeLinkItem({ tokenHash: 'lh', purpose: 'invite', userId: 'u1', email: 'a@b.c', expiresAt: 2e9 }),
    read: readOneTimeLink,
    back: { tokenHash: 'lh', purpose: 'invite', userId: 'u1', email: 'a@b.c', expiresAt: 2e9 },
    breaks: { purpose: 'become-admin' },
  },
  {
    entity: 'Passkey',
    item: passkeyItem(passkey),
    read: readPasskey,
    back: passkey,
    breaks: { transports: 'usb' },
  },
  {
    entity: 'WebAuthnChallenge',
    item: webAuthnChallengeItem({ challenge: 'ch', purpose: 'sign-in', userId: null, expiresAt: 2e9 }),
    read: readWebAuthnChallenge,
    back: { challenge: 'ch', purpose: 'sign-in', userId: null, expiresAt: 2e9 },
    breaks: { purpose: 'delete' },
  },
  {
    entity: 'Flash',
    item: flashItem({ userId: 'u1', sessionIdHash: 'sh', kind: 'token', expiresAt: 2e9 }, { secret: 's' }),
    read: readFlash,
    back: { value: { secret: 's' }, expiresAt: 2e9 },
    breaks: { value: '{"secret"' },
  },
  {
    entity: 'ReviewCard',
    item: { ...keys.reviewCard('u1', 'h1'), type: 'ReviewCard', noteId: 'n1', ...card },
    read: readReviewCard,
    back: card,
    breaks: { schedule: { ...schedule, due: 5 } },
  },
  {
    entity: 'ReviewLog',
    item: reviewLogItem(logEntry),
    read: readReviewLogEntry,
    back: logEntry,
    breaks: { rating: 'meh' },
  },
  {
    entity: 'ReviewDay',
    item: { ...reviewDayItem('u1', day, 2e9), rated: new Set(['h1']) },
    read: readReviewDay,
    back: day,
    breaks: { items: [{ highlightId: 'h1' }] },
  },
  {
    entity: 'ReviewSettings',
    item: reviewRecords.reviewSettingsItem('u1', DEFAULT_REVIEW_SETTINGS),
    read: reviewRecords.readReviewSettings,
    back: DEFAULT_REVIEW_SETTINGS,
    breaks: { settings: { size: '5' } },
  },
  {
    entity: 'ReviewProgress',
    item: reviewRecords.reviewProgressItem('u1', { count: 3, streak: 2, lastDay: '2026-01-02' }),
    read: reviewRecords.readReviewProgress,
    back: { count: 3, streak: 2, lastDay: '2026-01-02' },
    breaks: { progress: null },
  },
  {
    entity: 'ReviewFeed',
    item: reviewRecords.reviewFeedItem('u1', 'secret-hash', user.created),
    read: reviewRecords.readReviewFeed,
    back: { secretHash: 'secret-hash', issued: user.created },
    breaks: { secretHash: 42 },
  },
  {
    entity: 'OAuth artifact',
    item: oauthArtifactItem('AccessToken', 'sha256:x', { grantId: 'g1', accountId: 'u1', scope: 'notes:read' }, 2e9),
    read: readOAuthArtifact,
    back: { id: 'sha256:x', payload: { grantId: 'g1', accountId: 'u1', scope: 'notes:read' }, expiry: 2e9 },
    breaks: { payload: { grantId: 7 } },
  },
  {
    entity: 'OAuth grant',
    item: oauthArtifactItem('Grant', 'g1', {
      accountId: 'u1',
      clientId: 'client',
      resources: { 'https://gleaner.example/mcp': 'notes:read notes:write' },
      openid: { scope: 'openid' },
      iat: 1_767_225_600,
    }),
    read: readConnectedGrant,
    back: {
      grantId: 'g1',
      clientId: 'client',
      scopes: ['notes:read', 'notes:write', 'openid'],
      granted: '2026-01-01T00:00:00.000Z',
    },
    breaks: { payload: { accountId: 'u1' } },
  },
  {
    entity: 'OAuthLoginRef',
    item: oauthLoginRefItem('u1', 'session-1', 2e9),
    read: readOAuthLoginRef,
    back: 'session-1',
    breaks: { sessionId: undefined },
  },
  {
    entity: 'NoteLink',
    item: noteLinkItem({ id: 'n1', userId: 'u1' }, link),
    read: readNoteLink,
    back: { sourceNoteId: 'n1', context: link.context },
    breaks: { context: ['See'] },
  },
  {
    entity: 'NoteName',
    item: noteNameItem({ id: 'n1', userId: 'u1', created: user.created }, 'title:other'),
    read: readNoteName,
    back: 'n1',
    breaks: { noteId: 1 },
  },
] satisfies {
  entity: string;
  item: Record<string, unknown>;
  read: (item: never) => unknown;
  back: unknown;
  breaks: object;
}[];

describe('the codecs of the user, token, identity, review, OAuth and link entities', () => {
  it.each(entities)('read back what the $entity writer wrote ($read.name)', ({ item, read, back }) => {
    expect((read as (item: Record<string, unknown>) => unknown)(item)).toEqual(back);
  });

  it.each(entities)(
    'refuse a malformed $entity item ($read.name) with a MalformedItemError naming it and the attribute',
    ({ entity, item, read, breaks }) => {
      const malformed = { ...item, ...breaks };
      const reading = () => (read as (item: Record<string, unknown>) => unknown)(malformed);
      expect(reading).toThrow(MalformedItemError);
      expect(reading).toThrow(`${entity} item ${malformed.pk} ${malformed.sk} is malformed: ${Object.keys(breaks)[0]}`);
    },
  );

  it('read the records a user has none of yet as the defaults, and an item of a user from before display names', () => {
    expect(reviewRecords.readReviewSettings(undefined)).toEqual(DEFAULT_REVIEW_SETTINGS);
    expect(reviewRecords.readReviewProgress(undefined)).toEqual({ count: 0, streak: 0, lastDay: null });
    expect(reviewRecords.readReviewFeed(undefined)).toEqual({ secretHash: null, issued: null });
    // A card written by a skip only (never rated) is a new card with its skips.
    const skipped = { ...keys.reviewCard('u1', 'h2'), userId: 'u1', highlightId: 'h2', skips: 1 };
    expect(readReviewCard(skipped)).toMatchObject({
      skips: 1,
      version: 0,
      discarded: false,
      schedule: { phase: 'new' },
    });
    const { displayName: _displayName, noteCount: _noteCount, ...early } = userItem(user);
    expect(readUser(early)).toEqual({ ...user, displayName: '', noteCount: 0 });
    expect(readUserEmail(userItem(user))).toBeNull();
  });

  it('list each sign-in item in its user’s AUTH index under its kind', () => {
    const session = sessionItem({ idHash: 'sh', userId: 'u1', csrfToken: 'c', created: user.created, expiresAt: 2e9 });
    expect(session).toMatchObject({ gsi1pk: 'USER#u1#AUTH', gsi1sk: 'SESSION#sh', expiresAt: 2e9 });
    const grant = oauthArtifactItem('Grant', 'g1', { accountId: 'u1' });
    expect(grant).toMatchObject({ gsi1pk: 'USER#u1#AUTH', gsi1sk: 'GRANT#g1' });
    expect(oauthArtifactItem('RefreshToken', 'sha256:r', { grantId: 'g1' })).toMatchObject({
      gsi1pk: 'OIDCGRANT#g1',
      gsi1sk: 'RefreshToken#sha256:r',
    });
  });
});
