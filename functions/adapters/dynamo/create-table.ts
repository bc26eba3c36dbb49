import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '../../platform/table-definition';

const streamSpecification = { StreamEnabled: true, StreamViewType: tableDefinition.streamView };

/**
 * Creates the table from the shared definition unless it exists (local stack and tests only); a table
 * made before search existed gets its stream turned on.
 *
 * `stream: false` leaves the stream off for a table nothing reads it from (tests of the stores):
 * DynamoDB Local keeps every stream record of the process, and each write costs more the more it
 * holds (0.4 ms an item with none, 3 ms after 12,000 records, measured on 2 cores), so a shared one
 * slows down for every test that runs after a large one.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  { stream = true }: { stream?: boolean } = {},
): Promise<void> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (stream && !Table?.StreamSpecification?.StreamEnabled)
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: streamSpecification }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { partitionKey, sortKey, globalSecondaryIndexes } = tableDefinition;
  const keyNames = new Set<string>([partitionKey, sortKey]);
  for (const index of globalSecondaryIndexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: stream ? streamSpecification : { StreamEnabled: false },
      AttributeDefinitions: [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
}
