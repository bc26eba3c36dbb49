import { createHash } from 'node:crypto';
import { tableDefinition } from '../../platform/table-definition';

/** The overloaded lookup index (`gsi1pk`/`gsi1sk` below), named as the table definition names it. */
export const LOOKUP_INDEX = tableDefinition.globalSecondaryIndexes[0].indexName;
/** The attribute DynamoDB's TTL reads (epoch seconds), named as the table definition names it. */
export const TTL_ATTRIBUTE = tableDefinition.timeToLiveAttribute;

/**
 * Key design of the single table (entity-prefixed keys, `#` separators):
 *
 * | item                | pk                      | sk                 | gsi1pk                     | gsi1sk               |
 * |---------------------|-------------------------|--------------------|----------------------------|----------------------|
 * | user                | USER#<userId>           | USER               | USERS                      | <created>#<userId>   |
 * | saved-URL marker    | USER#<userId>           | URL#<sha256(url)>  |                            |                      |
 * | access token        | TOKEN#<sha256(token)>   | TOKEN              | TOKENID#<tokenId>          | TOKEN                |
 * | user's token (ref)  | USER#<userId>           | TOKEN#<tokenId>    |                            |                      |
 * | bookmark            | BOOKMARK#<bookmarkId>   | BOOKMARK           | OUTBOX#<shard> (pending)   | <since>#<bookmarkId> |
 * |   (imported, waiting) |                       |                    | IMPORTWAIT#<shard>         | <since>#<bookmarkId> |
 * | note                | NOTE#<noteId>           | NOTE               | USER#<userId>#NOTES        | <updated>#<noteId>   |
 * | note in the Trash   | NOTE#<noteId>           | NOTE               | USER#<userId>#TRASH        | <trashed>#<noteId>   |
 * | note tag (index)    | NOTE#<noteId>           | TAG#<tag>          | USER#<userId>#TAG#<tag>    | <updated>#<noteId>   |
 * | reading state (index) | NOTE#<noteId>         | STATE#<ARCHIVED or STARRED> | USER#<userId>#<ARCHIVED or STARRED> | <since>#<noteId> |
 * | feed                | FEED#<feedId>           | FEED               | USER#<userId>#FEEDS        | <created>#<feedId>   |
 * | rate-limit window   | RL#<bounded(subject)>   | W#<windowStart>    |                            |                      |
 * | site (favicon)      | SITE#<bounded(host)>    | SITE               |                            |                      |
 * | icon bytes          | ICON#<sha256>           | ICON               |                            |                      |
 * | idempotency record  | IDEMPOTENCY#<tokenId>   | KEY#<sha256(key)>  |                            |                      |
 * | highlight           | NOTE#<noteId>           | HL#<saved>#<id>    | USER#<userId>#HIGHLIGHTS   | HL#<highlightId>     |
 * | review card         | USER#<userId>           | CARD#<highlightId> |                            |                      |
 * | review log entry    | USER#<userId>           | RLOG#<highlightId>#<reviewed> |                 |                      |
 * | review settings     | USER#<userId>           | REVIEW#SETTINGS    |                            |                      |
 * | review progress     | USER#<userId>           | REVIEW#PROGRESS    |                            |                      |
 * | day's review        | USER#<userId>           | REVIEWDAY#<date>   |                            |                      |
 * | review feed secret  | USER#<userId>           | REVIEW#FEED        |                            |                      |
 * | tag rename (job)    | USER#<userId>           | RETAG#<tag>        | RETAGS                     | <resumeAt>#<userId>#<tag> |
 * | link (outgoing)     | NOTE#<noteId>           | LINK#<sha256(key)> | USER#<userId>#LINKTO#<sha256(key)> | <noteId>     |
 * | note's title name   | NOTE#<noteId>           | NAME#<sha256(key)> | USER#<userId>#NAME#<sha256(key)>   | <created>#<noteId> |
 * | email login         | EMAIL#<email>           | EMAIL              | USER#<userId>#AUTH         | EMAIL#<email>        |
 * | browser session     | SESSION#<sha256(id)>    | SESSION            | USER#<userId>#AUTH         | SESSION#<sha256(id)> |
 * | one-time link       | ONETIME#<sha256(token)> | ONETIME            | USER#<userId>#AUTH         | ONETIME#<sha256>     |
 * | passkey             | USER#<userId>           | PASSKEY#<credId>   |                            |                      |
 * | WebAuthn challenge  | WEBAUTHN#<challenge>    | CHALLENGE          |                            |                      |
 * | OAuth artifact      | OIDC#<model>#<id>       | OIDC               | OIDCGRANT#<grantId> (or UID) | <model>#<id>       |
 * |   (token or code)   | OIDC#<model>#sha256:<sha256(id)> | OIDC      | OIDCGRANT#<grantId>        | <model>#sha256:<…>   |
 * | OAuth grant         | OIDC#Grant#<grantId>    | OIDC               | USER#<userId>#AUTH         | GRANT#<grantId>      |
 * | OAuth login (ref)   | USER#<userId>           | OIDCSESSION#<id>   |                            |                      |
 * | import              | USER#<userId>           | IMPORT#<importId>  |                            |                      |
 * | import's skipped rows | USER#<userId>         | IMPORTSKIP#<importId>#<page> |                  |                      |
 * | import under way    | USER#<userId>           | IMPORTLOCK         |                            |                      |
 *
 * Everything of the review lives in the user's partition and every link item in its note's, so
 * deleting an account (its partition and its notes' partitions) deletes them too. Link lookups go
 * through index partitions named by the user: another user's links and names are never read.
 *
 * DynamoDB refuses a partition key over 2048 bytes and a sort key over 1024 bytes with an error, so
 * every part that comes from outside (URLs, hosts, tags, client addresses, Idempotency-Key values)
 * is hashed or bounded: see `bounded` and the key-size unit test.
 */
export type Key = { pk: string; sk: string };

/** The sign-in items listed in a user's AUTH index partition (see `authIndex`). */
export type AuthEntryKind = 'EMAIL' | 'SESSION' | 'ONETIME' | 'GRANT';

/** The reading states a note is listed under (see `noteState`). */
export type ReadingStateName = 'ARCHIVED' | 'STARRED';

/** Longest key part kept as written (UTF-8 bytes); well inside both key limits with any prefix. */
const KEY_PART_MAX_BYTES = 512;

/** `value` as written when short (readable keys), else its SHA-256, so no input can overflow a key. */
function bounded(value: string): string {
  return Buffer.byteLength(value, 'utf8') <= KEY_PART_MAX_BYTES ? value : `sha256:${sha256(value)}`;
}

export const keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'USER' }),
  /** Every user, by creation (one partition: users are few and written once, for `gleaner users list`). */
  usersIndex: (created?: string, userId?: string) => ({
    gsi1pk: 'USERS',
    gsi1sk: created && userId ? `${created}#${userId}` : '',
  }),
  savedUrl: (userId: string, normalizedUrl: string): Key => ({
    pk: `USER#${userId}`,
    sk: `URL#${sha256(normalizedUrl)}`,
  }),
  token: (tokenHash: string): Key => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  /** Names a user's token (its id and hash, never the secret), so `tokens list` finds them all. */
  userToken: (userId: string, tokenId: string): Key => ({ pk: `USER#${userId}`, sk: `TOKEN#${tokenId}` }),
  tokenIdIndex: (tokenId: string) => ({ gsi1pk: `TOKENID#${tokenId}`, gsi1sk: 'TOKEN' }),
  bookmark: (bookmarkId: string): Key => ({ pk: `BOOKMARK#${bookmarkId}`, sk: 'BOOKMARK' }),
  /**
   * Bookmarks whose enrichment has not completed, sharded over 16 partitions by the id's first hex
   * digit so a burst of saves does not make one hot key; the sweeper reads them back.
   */
  enrichmentOutbox: (bookmarkId: string, since: string) => ({
    gsi1pk: `OUTBOX#${bookmarkId[0]}`,
    gsi1sk: `${since}#${bookmarkId}`,
  }),
  enrichmentOutboxShards: [...'0123456789abcdef'].map((digit) => `OUTBOX#${digit}`),
  /** An imported bookmark waiting to be handed to the page worker (the sweeper releases a bounded batch at a time). */
  importBacklog: (bookmarkId: string, since: string) => ({
    gsi1pk: `IMPORTWAIT#${bookmarkId[0]}`,
    gsi1sk: `${since}#${bookmarkId}`,
  }),
  importBacklogShards: [...'0123456789abcdef'].map((digit) => `IMPORTWAIT#${digit}`),
  /**
   * A bookmark saved before articles were kept, waiting for the sweeper to queue its page fetch
   * (`gleaner migrate`'s article-backfill): its outbox slot is free, as its enrichment ended long ago.
   */
  articleBackfill: (bookmarkId: string, since: string) => ({
    gsi1pk: `ARTICLES#${bookmarkId[0]}`,
    gsi1sk: `${since}#${bookmarkId}`,
  }),
  articleBackfillShards: [...'0123456789abcdef'].map((digit) => `ARTICLES#${digit}`),
  note: (noteId: string): Key => ({ pk: `NOTE#${noteId}`, sk: 'NOTE' }),
  /** A user's notes, most recently updated first (the same order as the tag index). */
  userNotesIndex: (userId: string, updated?: string, noteId?: string) => ({
    gsi1pk: `USER#${userId}#NOTES`,
    gsi1sk: updated && noteId ? `${updated}#${noteId}` : '',
  }),
  /** A user's notes in the Trash, most recently deleted first (a trashed note moves here from the notes index). */
  userTrashIndex: (userId: string, trashed?: string, noteId?: string) => ({
    gsi1pk: `USER#${userId}#TRASH`,
    gsi1sk: trashed && noteId ? `${trashed}#${noteId}` : '',
  }),
  noteTag: (noteId: string, tag: string): Key => ({ pk: `NOTE#${noteId}`, sk: `TAG#${tag}` }),
  /** Marks an archived or starred note (the note item holds the state; this entry lists it). */
  noteState: (noteId: string, state: ReadingStateName): Key => ({ pk: `NOTE#${noteId}`, sk: `STATE#${state}` }),
  /** A user's archived or starred notes, most recently archived (starred) first. */
  stateIndex: (userId: string, state: ReadingStateName, since?: string, noteId?: string) => ({
    gsi1pk: `USER#${userId}#${state}`,
    gsi1sk: since && noteId ? `${since}#${noteId}` : '',
  }),
  /** A note's highlights live in its partition, in the order they were saved. */
  highlight: (noteId: string, saved: string, highlightId: string): Key => ({
    pk: `NOTE#${noteId}`,
    sk: `${HIGHLIGHT_SORT_PREFIX}${saved}#${highlightId}`,
  }),
  /** Every highlight of a user, found by its id (the review reads them all, a rating finds one). */
  userHighlightsIndex: (userId: string, highlightId?: string) => ({
    gsi1pk: `USER#${userId}#HIGHLIGHTS`,
    gsi1sk: highlightId ? `HL#${highlightId}` : '',
  }),
  reviewCard: (userId: string, highlightId: string): Key => ({
    pk: `USER#${userId}`,
    sk: `${REVIEW_CARD_PREFIX}${highlightId}`,
  }),
  /** Append-only: one item per rating, a highlight's together and in time order. */
  reviewLogEntry: (userId: string, highlightId: string, reviewed: string): Key => ({
    pk: `USER#${userId}`,
    sk: `${REVIEW_LOG_PREFIX}${highlightId}#${reviewed}`,
  }),
  reviewSettings: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'REVIEW#SETTINGS' }),
  reviewProgress: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'REVIEW#PROGRESS' }),
  reviewDay: (userId: string, date: string): Key => ({ pk: `USER#${userId}`, sk: `${REVIEW_DAY_PREFIX}${date}` }),
  reviewFeed: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'REVIEW#FEED' }),
  /** An unfinished rename or merge of the user's tag (tags are at most 64 characters: well inside the key). */
  retagJob: (userId: string, tag: string): Key => ({ pk: `USER#${userId}`, sk: `${RETAG_JOB_PREFIX}${tag}` }),
  /** Every user's unfinished renames and merges, by when a run may take each up (the sweeper reads the due ones); jobs are few and short-lived. */
  retagJobsIndex: (resumeAt?: string, userId?: string, tag?: string) => ({
    gsi1pk: 'RETAGS',
    gsi1sk: resumeAt === undefined ? undefined : `${resumeAt}#${userId}#${tag}`,
  }),
  /** A note's link to `key` (`title:…`/`url:…`), found from the target's side through the index. */
  link: (noteId: string, key: string): Key => ({ pk: `NOTE#${noteId}`, sk: `${LINK_SORT_PREFIX}${sha256(key)}` }),
  linksToIndex: (userId: string, key: string, sourceNoteId?: string) => ({
    gsi1pk: `USER#${userId}#LINKTO#${sha256(key)}`,
    gsi1sk: sourceNoteId ?? '',
  }),
  /** The title a note answers to (URLs answer through the saved-URL marker). */
  noteName: (noteId: string, key: string): Key => ({ pk: `NOTE#${noteId}`, sk: `${NAME_SORT_PREFIX}${sha256(key)}` }),
  namesIndex: (userId: string, key: string, created?: string, noteId?: string) => ({
    gsi1pk: `USER#${userId}#NAME#${sha256(key)}`,
    gsi1sk: created && noteId ? `${created}#${noteId}` : '',
  }),
  tagIndex: (userId: string, tag: string, updated?: string, noteId?: string) => ({
    gsi1pk: `USER#${userId}#TAG#${tag}`,
    gsi1sk: updated && noteId ? `${updated}#${noteId}` : '',
  }),
  feed: (feedId: string): Key => ({ pk: `FEED#${feedId}`, sk: 'FEED' }),
  userFeedsIndex: (userId: string, created?: string, feedId?: string) => ({
    gsi1pk: `USER#${userId}#FEEDS`,
    gsi1sk: created && feedId ? `${created}#${feedId}` : '',
  }),
  rateLimitWindow: (subject: string, windowStart: number): Key => ({
    pk: `RL#${bounded(subject)}`,
    sk: `W#${windowStart}`,
  }),
  site: (host: string): Key => ({ pk: `SITE#${bounded(host)}`, sk: 'SITE' }),
  icon: (hash: string): Key => ({ pk: `ICON#${hash}`, sk: 'ICON' }),
  /** Idempotency-Keys are per access token: another token's same key is another record. */
  idempotency: (tokenId: string, key: string): Key => ({ pk: `IDEMPOTENCY#${tokenId}`, sk: `KEY#${sha256(key)}` }),
  login: (email: string): Key => ({ pk: `EMAIL#${bounded(email)}`, sk: 'EMAIL' }),
  session: (idHash: string): Key => ({ pk: `SESSION#${idHash}`, sk: 'SESSION' }),
  oneTimeLink: (tokenHash: string): Key => ({ pk: `ONETIME#${tokenHash}`, sk: 'ONETIME' }),
  passkey: (userId: string, credentialId: string): Key => ({
    pk: `USER#${userId}`,
    sk: `PASSKEY#${bounded(credentialId)}`,
  }),
  /** A secret a form post minted, kept for the one page after its redirect (in the user's partition: deletion takes it). */
  flash: (userId: string, kind: string, sessionIdHash: string): Key => ({
    pk: `USER#${userId}`,
    sk: `FLASH#${kind}#${sessionIdHash}`,
  }),
  webAuthnChallenge: (challenge: string): Key => ({ pk: `WEBAUTHN#${bounded(challenge)}`, sk: 'CHALLENGE' }),
  /**
   * Everything a user signs in with (logins, sessions, one-time links, OAuth grants), for
   * sign-out-everywhere and deletion: an entry of `kind` named by `id` (without an id, the prefix of
   * every entry of that kind).
   */
  authIndex: (userId: string, kind?: AuthEntryKind, id = '') => ({
    gsi1pk: `USER#${userId}#AUTH`,
    gsi1sk: kind ? `${kind}#${id}` : '',
  }),
  /** An oidc-provider artifact (token, code, grant, interaction, …) by its model name and id. */
  oauthArtifact: (model: string, id: string): Key => ({ pk: `OIDC#${model}#${bounded(id)}`, sk: 'OIDC' }),
  /** What the table holds in place of an artifact id that is itself a bearer secret (a token, a code). */
  oauthSecretId: (id: string): string => `sha256:${sha256(id)}`,
  oauthGrantIndex: (grantId: string, model: string, id: string) => ({
    gsi1pk: `OIDCGRANT#${grantId}`,
    gsi1sk: `${model}#${bounded(id)}`,
  }),
  oauthUidIndex: (uid: string) => ({ gsi1pk: `OIDCUID#${uid}`, gsi1sk: 'Session' }),
  /** An import of the user's (`importJob(userId, '')` is the prefix of them all). */
  importJob: (userId: string, importId: string): Key => ({ pk: `USER#${userId}`, sk: `IMPORT#${importId}` }),
  importSkipped: (userId: string, importId: string, page: number): Key => ({
    pk: `USER#${userId}`,
    sk: `IMPORTSKIP#${importId}#${String(page).padStart(5, '0')}`,
  }),
  /** The account's import under way: one at a time. */
  importLock: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'IMPORTLOCK' }),
  /** Names an OAuth login session of the user, so deleting the account finds it. */
  oauthLoginRef: (userId: string, sessionId: string): Key => ({ pk: `USER#${userId}`, sk: `OIDCSESSION#${sessionId}` }),
};

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Sort keys of a note's highlights start with it (a Query with begins_with reads them all). */
export const HIGHLIGHT_SORT_PREFIX = 'HL#';

export const REVIEW_CARD_PREFIX = 'CARD#';
export const RETAG_JOB_PREFIX = 'RETAG#';
export const REVIEW_LOG_PREFIX = 'RLOG#';
export const REVIEW_DAY_PREFIX = 'REVIEWDAY#';
export const LINK_SORT_PREFIX = 'LINK#';
export const NAME_SORT_PREFIX = 'NAME#';

/** Prefix of every rate-limit key; the CDK stack limits the feed functions' writes to it. */
export const RATE_LIMIT_KEY_PREFIX = 'RL#';
