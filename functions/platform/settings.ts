import type { RateLimitPolicy } from '../core/contract/rate-limit';
import { parseRateLimitPolicy } from '../core/contract/rate-limit';
import type { Environment } from './env';

/**
 * The settings contract between the CDK stack (lib/), the local stack (local/) and the handlers:
 * every environment variable a function reads, named once, with its parser and its default. The
 * stacks set variables by these names; the handlers read them through `setting()`, which refuses a
 * malformed value at start (a typo in a throttle must not silently become the default).
 */
export interface Setting<T> {
  /** The environment variable. */
  readonly name: string;
  readonly doc: string;
  /** Turns the variable's text into the value; throws on a malformed one. */
  readonly parse: (text: string) => T;
  /** When unset; a setting without one is required. */
  readonly fallback?: T;
}

export class SettingError extends Error {}

const wholeNumber = (text: string): number => {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) throw new Error('must be a whole number');
  return value;
};
const text = (value: string): string => value;
const flag = (value: string): boolean => {
  if (value !== 'true' && value !== 'false') throw new Error('must be true or false');
  return value === 'true';
};
const commaList = (value: string): string[] => {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new Error('must name at least one item');
  return items;
};

/** Names Powertools reads itself: the stack sets them, the handlers' own loggers and metrics use the same values. */
export const SERVICE_NAME = 'gleaner';
export const METRICS_NAMESPACE = 'Gleaner';

export const settings = {
  tableName: { name: 'TABLE_NAME', doc: 'the single DynamoDB table', parse: text },
  dynamoEndpoint: {
    name: 'DYNAMODB_ENDPOINT',
    doc: 'DynamoDB Local (local stack only)',
    parse: text,
    fallback: undefined,
  },
  sqsEndpoint: {
    name: 'SQS_ENDPOINT',
    doc: 'the local queue emulation (local stack only)',
    parse: text,
    fallback: undefined,
  },
  enrichmentQueueUrl: { name: 'ENRICHMENT_QUEUE_URL', doc: 'where saves ask for enrichment', parse: text },
  sourceQueueUrl: {
    name: 'SOURCE_QUEUE_URL',
    doc: 'the queue a worker drains, for ChangeMessageVisibility (set by the stack, right in every partition)',
    parse: text,
  },
  importQueueUrl: { name: 'IMPORT_QUEUE_URL', doc: "where an import's chunks are queued", parse: text },
  faviconQueueUrl: { name: 'FAVICON_QUEUE_URL', doc: 'where the page worker hands favicon candidates', parse: text },
  indexingQueueUrl: {
    name: 'INDEXING_QUEUE_URL',
    doc: "the FIFO queue (a group per shard) the search indexer passes the stream's note changes through; without it the indexer writes the index from the stream itself",
    parse: text,
    fallback: undefined,
  },
  publicBaseUrl: {
    name: 'PUBLIC_BASE_URL',
    doc: "readers' address of the service (CloudFront or the custom domain)",
    parse: text,
    fallback: undefined,
  },
  trustCdnHeaders: {
    name: 'TRUST_CDN_HEADERS',
    doc: 'behind CloudFront: trust its viewer-address and host headers',
    parse: flag,
    fallback: false,
  },
  corsAllowedOrigins: {
    name: 'CORS_ALLOWED_ORIGINS',
    doc: 'origins allowed to call the save route (comma-separated, * for any)',
    parse: commaList,
    fallback: ['*'],
  },
  feedMaxEntries: { name: 'FEED_MAX_ENTRIES', doc: 'entries per feed', parse: wholeNumber, fallback: 50 },
  feedCacheSeconds: {
    name: 'FEED_CACHE_SECONDS',
    doc: 'Cache-Control max-age of feed answers',
    parse: wholeNumber,
    fallback: 300,
  },
  iconRefreshDays: {
    name: 'ICON_REFRESH_DAYS',
    doc: "days before a site's favicon is fetched again",
    parse: wholeNumber,
    fallback: 7,
  },
  retryBaseSeconds: {
    name: 'RETRY_BASE_SECONDS',
    doc: "workers' first retry delay (doubling after)",
    parse: wholeNumber,
    fallback: 30,
  },
  outboxGraceSeconds: {
    name: 'OUTBOX_GRACE_SECONDS',
    doc: 'age before the sweeper re-publishes an enrichment request',
    parse: wholeNumber,
    fallback: 120,
  },
  articleBackfillPerSweep: {
    name: 'ARTICLE_BACKFILL_PER_SWEEP',
    doc: "page fetches of notes saved before articles were kept that each sweep queues at most (gleaner migrate's article-backfill)",
    parse: wholeNumber,
    fallback: 100,
  },
  routeRetirement: {
    name: 'ROUTE_RETIREMENT',
    doc: "a retiring route's dates (JSON, from the route table)",
    parse: text,
    fallback: undefined,
  },
  pageMaxBytes: {
    name: 'PAGE_MAX_BYTES',
    doc: 'decompressed bytes of a saved page the page worker reads at most (its article is taken from them)',
    parse: wholeNumber,
    fallback: 5 * 1024 * 1024,
  },
  articleStore: {
    name: 'ARTICLE_STORE',
    doc: 'where kept articles and their images live: s3://bucket on AWS, a folder locally',
    parse: text,
  },
  importUploads: {
    name: 'IMPORT_UPLOADS',
    doc: 'where import files are uploaded: s3://bucket on AWS, a folder locally',
    parse: text,
  },
  fetchAllow: {
    name: 'GLEANER_FETCH_ALLOW',
    doc: 'host:port pairs the fetcher may reach despite its address rules (tests, local fixtures)',
    parse: text,
    fallback: undefined,
  },
  webBaseUrl: {
    name: 'WEB_BASE_URL',
    doc: "the web app's address, when it differs from PUBLIC_BASE_URL (locally http://localhost:PORT: WebAuthn needs a host name, not an IP address)",
    parse: text,
    fallback: undefined,
  },
  mailFolder: {
    name: 'MAIL_FOLDER',
    doc: 'local stack: write mail as files here (and print its link) instead of sending it through SES',
    parse: text,
    fallback: undefined,
  },
  mailFrom: {
    name: 'MAIL_FROM',
    doc: "the SES identity accounts' mail is sent from",
    parse: text,
    fallback: 'Gleaner <no-reply@localhost>',
  },
  oauthKeysSecret: {
    name: 'OAUTH_KEYS_SECRET_ARN',
    doc: "Secrets Manager secret holding the authorization server's signing JWKS and cookie keys",
    parse: text,
    fallback: undefined,
  },
  oauthKeysFile: {
    name: 'OAUTH_KEYS_FILE',
    doc: 'local stack: the file the generated signing JWKS and cookie keys persist in',
    parse: text,
    fallback: undefined,
  },
  signInAccountLimit: {
    name: 'SIGNIN_ACCOUNT_RATE_LIMIT',
    doc: 'sign-in attempts per email address',
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('10;w=900'),
  },
  signInAddressLimit: {
    name: 'SIGNIN_ADDRESS_RATE_LIMIT',
    doc: 'sign-in, sign-up and reset attempts per client address',
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('60;w=900'),
  },
  oauthRegistrationLimit: {
    name: 'OAUTH_REGISTRATION_RATE_LIMIT',
    doc: 'dynamic client registrations per client address',
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('20;w=3600'),
  },
  mcpClientRateLimit: {
    name: 'MCP_CLIENT_RATE_LIMIT',
    doc: "an MCP client's quota per user (each call also counts against the user's OWNER_RATE_LIMIT)",
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('300;w=60'),
  },
  mcpAllowedOrigins: {
    name: 'MCP_ALLOWED_ORIGINS',
    doc: "browser origins besides the service's own that may call /mcp (comma-separated; e.g. a local MCP Inspector)",
    parse: commaList,
    fallback: [],
  },
  logLevel: { name: 'LOG_LEVEL', doc: 'Powertools log level', parse: text, fallback: 'INFO' },
  searchIndexUri: {
    name: 'SEARCH_INDEX_URI',
    doc: 'where the search index lives: a folder, or s3+ddb://bucket/prefix?ddbTableName=… on AWS',
    parse: text,
  },
  searchShards: {
    name: 'SEARCH_SHARDS',
    doc: 'shards of a new search index (a user is in one, by a hash of the id); an existing index keeps its own until `gleaner reindex --shards M`: 1 locally, 64 on AWS',
    parse: wholeNumber,
    fallback: 1,
  },
  searchFoldRows: {
    name: 'SEARCH_FOLD_ROWS',
    doc: "rows a search shard's writes reach before the indexer's scheduled run folds them into its indexes (a write folds them at 500; fewer are found through the shard's recent table meanwhile)",
    parse: wholeNumber,
    fallback: 100,
  },
  embeddings: {
    name: 'GLEANER_EMBEDDINGS',
    doc: '`builtin` (the default): the model that ships in the package (Universal Sentence Encoder lite), unless Bedrock, an endpoint or model files are named; `off`: keyword search only',
    parse: (value: string): 'builtin' | 'off' => {
      if (value !== 'builtin' && value !== 'off') throw new Error('must be builtin or off');
      return value;
    },
    fallback: 'builtin',
  },
  embeddingsUrl: {
    name: 'GLEANER_EMBEDDINGS_URL',
    doc: 'an OpenAI-compatible embeddings endpoint (…/v1/embeddings); unset: the built-in model',
    parse: text,
    fallback: undefined,
  },
  embeddingsModel: {
    name: 'GLEANER_EMBEDDINGS_MODEL',
    doc: 'the model the embeddings endpoint (or Bedrock) is asked for',
    parse: text,
    fallback: undefined,
  },
  embeddingsModelPath: {
    name: 'GLEANER_EMBEDDINGS_MODEL_PATH',
    doc: 'a folder of local model files (ONNX and tokenizer) to embed with through @huggingface/transformers, which the operator installs; unset: not used',
    parse: text,
    fallback: undefined,
  },
  embeddingsApiKey: {
    name: 'GLEANER_EMBEDDINGS_API_KEY',
    doc: 'bearer token for the embeddings endpoint, if it wants one',
    parse: text,
    fallback: undefined,
  },
  bedrockEmbeddings: {
    name: 'BEDROCK_EMBEDDINGS',
    doc: 'true on AWS: embed with Bedrock (GLEANER_EMBEDDINGS_MODEL names the model)',
    parse: flag,
    fallback: false,
  },
} satisfies Record<string, Setting<unknown>>;

/** The application rate limit of each quota (`requests;w=seconds`). */
export const rateLimitSettings = {
  save: {
    name: 'SAVE_RATE_LIMIT',
    doc: 'save quota per token (and per client without one)',
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('120;w=60'),
  },
  feed: {
    name: 'FEED_RATE_LIMIT',
    doc: 'feed quota per client',
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('600;w=60'),
  },
  owner: {
    name: 'OWNER_RATE_LIMIT',
    doc: "the per-user API's quota per user (and per client before sign-in)",
    parse: parseRateLimitPolicy,
    fallback: parseRateLimitPolicy('600;w=60'),
  },
} satisfies Record<string, Setting<RateLimitPolicy>>;

/** A setting's value from `env`: its default when unset, a SettingError naming it when malformed or missing. */
export function setting<T>(env: Environment, definition: Setting<T>): T {
  const raw = env[definition.name];
  if (raw === undefined || raw === '') {
    if ('fallback' in definition) return definition.fallback as T;
    throw new SettingError(`${definition.name} is not set (${definition.doc})`);
  }
  try {
    return definition.parse(raw);
  } catch (error) {
    throw new SettingError(
      `${definition.name}=${JSON.stringify(raw)} is not valid: ${(error as Error).message} (${definition.doc})`,
    );
  }
}
