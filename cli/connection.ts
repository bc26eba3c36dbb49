import { join } from 'node:path';
import { createArticleStore } from '../functions/adapters/article-store';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients, type DynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { DynamoIdentityStore } from '../functions/adapters/dynamo/identity-store';
import { DynamoImportStore } from '../functions/adapters/dynamo/import-store';
import { type MigrationResult, runMigrations } from '../functions/adapters/dynamo/migrations';
import { FolderMailer } from '../functions/adapters/mail/folder-mailer';
import { createMailer } from '../functions/adapters/mail/mailer';
import type { embedderFromEnv, RebuildScope } from '../functions/adapters/search/search-services';
import type { ShardedSearchIndex } from '../functions/adapters/search/sharded-index';
import type { ArticleStore } from '../functions/core/article/article';
import { storedArticleText } from '../functions/core/article/resource';
import type { Mailer } from '../functions/core/identity/mail';
import type { Note } from '../functions/core/model';
import type { SearchPorts } from '../functions/core/search/search';
import { settings } from '../functions/platform/settings';
import { dataDirectory, readLocalState, searchIndexFolder } from '../local/state';
import type { CliOutput } from './commands';

const searchServices = () => import('../functions/adapters/search/search-services');

export interface Connection {
  readonly accounts: DynamoAccountStore;
  readonly bookmarks: DynamoBookmarkStore;
  readonly feeds: DynamoFeedStore;
  /** Imports, and the bookmark store an import's saves write through (its new bookmarks wait in its backlog). */
  readonly imports: DynamoImportStore;
  importBookmarks(backlog: { importId: string; since: string }): DynamoBookmarkStore;
  /** Runs `gleaner migrate`'s migrations over the table, then backfills the search index. */
  migrate(): Promise<MigrationResult[]>;
  /** The search index and embedder (opened on first use). */
  search(): Promise<SearchPorts>;
  /** Rebuilds the search index (a user's notes, a shard, every shard, or into M shards) from the table; how many notes it indexed. */
  reindex(scope: RebuildScope): Promise<number>;
  /** Public base URL for the feed addresses the commands print; null when unknown. */
  readonly baseUrl: string | null;
  readonly identities: DynamoIdentityStore;
  /** Invitations: SES (MAIL_FROM) for a deployed table, the local stack's mail folder otherwise. */
  readonly mailer: Mailer;
  /** Where the web app is, for the links mailed (locally http://localhost:PORT). */
  readonly webBaseUrl: string | null;
  /** Kept articles: the local stack's folder, or ARTICLE_STORE (s3://bucket) for a deployed table; null when unknown. */
  readonly articles: ArticleStore | null;
  close(): void;
}

/** The deployed table named by --table/--region, or else the running local stack's DynamoDB Local. */
export function connect(
  target: { table?: string; region?: string; baseUrl?: string; searchIndex?: string },
  processEnv: NodeJS.ProcessEnv,
  /** Where the mail notices go: stderr, so that stdout holds the answer alone (`--json | jq`). */
  notices: CliOutput,
): Connection {
  const notice = (line: string) => notices.write(`${line}\n`);
  let tableName: string;
  let clients: DynamoClients;
  let baseUrl = target.baseUrl ?? processEnv.GLEANER_BASE_URL ?? null;
  let webBaseUrl = baseUrl;
  let mailer: Mailer;
  let searchIndexUri = target.searchIndex ?? processEnv[settings.searchIndexUri.name];
  let articleStore = processEnv[settings.articleStore.name] ?? null;
  if (target.table) {
    tableName = target.table;
    clients = createDynamoClients({ region: target.region });
    mailer = createMailer(processEnv, { print: notice });
  } else {
    const dataDir = dataDirectory(processEnv);
    const state = readLocalState(dataDir);
    if (!state) {
      throw new Error(
        `the local stack is not running (no live state in ${dataDir}). Start it with \`npm start\`, or pass --table NAME --region REGION for a deployed table.`,
      );
    }
    tableName = state.tableName;
    baseUrl ??= state.baseUrl;
    webBaseUrl ??= state.webBaseUrl ?? state.baseUrl;
    mailer = new FolderMailer(join(dataDir, 'mail'), notice);
    searchIndexUri ??= searchIndexFolder(dataDir);
    articleStore ??= join(dataDir, 'articles');
    clients = createDynamoClients({ endpoint: state.dynamoEndpoint, region: 'local' });
  }
  const env = { ...processEnv, [settings.searchIndexUri.name]: searchIndexUri };
  let opened: Promise<{ index: ShardedSearchIndex; embedder: ReturnType<typeof embedderFromEnv> }> | undefined;
  const search = () => {
    if (!searchIndexUri)
      throw new Error(`name the search index with --search-index URI or ${settings.searchIndexUri.name}`);
    // Loaded here, not at start: LanceDB's native module takes a third of a second to load.
    opened ??= searchServices().then(async ({ openIndexFromEnv, embedderFromEnv }) => ({
      index: await openIndexFromEnv(env),
      embedder: embedderFromEnv(env),
    }));
    return opened;
  };
  const { doc } = clients;
  const articles = articleStore ? createArticleStore(articleStore) : null;
  // A rebuild indexes each note's kept article too, where the article store is known.
  const indexSources = async () => ({
    doc,
    tableName,
    ...(await search()),
    ...(articles ? { articleText: (note: Note) => storedArticleText(articles, note) } : {}),
  });
  return {
    accounts: new DynamoAccountStore(doc, tableName),
    bookmarks: new DynamoBookmarkStore(doc, tableName),
    feeds: new DynamoFeedStore(doc, tableName),
    imports: new DynamoImportStore(doc, tableName),
    importBookmarks: (backlog) => new DynamoBookmarkStore(doc, tableName, backlog),
    migrate: async () => {
      const results = await runMigrations(doc, tableName);
      const { backfillIndex } = await searchServices();
      const changed = await backfillIndex(await indexSources());
      return [
        ...results,
        { name: 'search-index', description: 'Indexes for search the notes the search index lacks', changed },
      ];
    },
    search,
    reindex: async (scope) => {
      const { rebuildIndex } = await searchServices();
      return rebuildIndex(await indexSources(), scope);
    },
    baseUrl,
    identities: new DynamoIdentityStore(clients.doc, tableName),
    mailer,
    webBaseUrl,
    articles,
    close: () => {
      clients.client.destroy();
      void opened?.then(({ index }) => index.close());
    },
  };
}
