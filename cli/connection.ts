import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../functions/adapters/dynamo/bookmark-store';
import { dataDirectory, readLocalState } from '../local/state';

export interface Connection {
  readonly accounts: DynamoAccountStore;
  readonly bookmarks: DynamoBookmarkStore;
  close(): void;
}

/** The deployed table named by --table/--region, or else the running local stack's DynamoDB Local. */
export function connect(target: { table?: string; region?: string }): Connection {
  let tableName: string;
  let clients;
  if (target.table) {
    tableName = target.table;
    clients = createDynamoClients({ region: target.region });
  } else {
    const dataDir = dataDirectory();
    const state = readLocalState(dataDir);
    if (!state) {
      throw new Error(
        `the local stack is not running (no live state in ${dataDir}). Start it with \`npm start\`, or pass --table NAME --region REGION for a deployed table.`,
      );
    }
    tableName = state.tableName;
    clients = createDynamoClients({ endpoint: state.dynamoEndpoint, region: 'local' });
  }
  return {
    accounts: new DynamoAccountStore(clients.doc, tableName),
    bookmarks: new DynamoBookmarkStore(clients.doc, tableName),
    close: () => clients.client.destroy(),
  };
}
