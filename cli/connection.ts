import { join } from 'node:path';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients, type DynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { DynamoIdentityStore } from '../functions/adapters/dynamo/identity-store';
import { type MigrationResult, runMigrations } from '../functions/adapters/dynamo/migrations';
import { FolderMailer } from '../functions/adapters/mail/folder-mailer';
import { createMailer } from '../functions/adapters/mail/mailer';
import type { Mailer } from '../functions/core/identity/mail';
import { dataDirectory, readLocalState } from '../local/state';

export interface Connection {
  readonly accounts: DynamoAccountStore;
  readonly bookmarks: DynamoBookmarkStore;
  readonly feeds: DynamoFeedStore;
  /** Runs `gleaner migrate`'s migrations over the table. */
  migrate(): Promise<MigrationResult[]>;
  /** Public base URL for the feed addresses the commands print; null when unknown. */
  readonly baseUrl: string | null;
  readonly identities: DynamoIdentityStore;
  /** Invitations: SES (MAIL_FROM) for a deployed table, the local stack's mail folder otherwise. */
  readonly mailer: Mailer;
  /** Where the web app is, for the links mailed (locally http://localhost:PORT). */
  readonly webBaseUrl: string | null;
  close(): void;
}

/** The deployed table named by --table/--region, or else the running local stack's DynamoDB Local. */
export function connect(target: { table?: string; region?: string; baseUrl?: string }): Connection {
  let tableName: string;
  let clients: DynamoClients;
  let baseUrl = target.baseUrl ?? process.env.GLEANER_BASE_URL ?? null;
  let webBaseUrl = baseUrl;
  let mailer: Mailer;
  if (target.table) {
    tableName = target.table;
    clients = createDynamoClients({ region: target.region });
    mailer = createMailer(process.env);
  } else {
    const dataDir = dataDirectory();
    const state = readLocalState(dataDir);
    if (!state) {
      throw new Error(
        `the local stack is not running (no live state in ${dataDir}). Start it with \`npm start\`, or pass --table NAME --region REGION for a deployed table.`,
      );
    }
    tableName = state.tableName;
    baseUrl ??= state.baseUrl;
    webBaseUrl ??= state.webBaseUrl ?? state.baseUrl;
    mailer = new FolderMailer(join(dataDir, 'mail'));
    clients = createDynamoClients({ endpoint: state.dynamoEndpoint, region: 'local' });
  }
  return {
    accounts: new DynamoAccountStore(clients.doc, tableName),
    bookmarks: new DynamoBookmarkStore(clients.doc, tableName),
    feeds: new DynamoFeedStore(clients.doc, tableName),
    migrate: () => runMigrations(clients.doc, tableName),
    baseUrl,
    identities: new DynamoIdentityStore(clients.doc, tableName),
    mailer,
    webBaseUrl,
    close: () => clients.client.destroy(),
  };
}
