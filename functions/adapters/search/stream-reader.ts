import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

/**
 * Reads a table's DynamoDB stream the way Lambda's event source mapping does, for the local stack
 * (DynamoDB Local serves DescribeStream, GetShardIterator and GetRecords): every shard from its
 * oldest record, in order, each shard's iterator carried from one read to the next.
 */
export class StreamReader {
  private readonly iterators = new Map<string, string | null>();

  private constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly streamArn: string,
  ) {}

  static async open(client: DynamoDBClient, endpoint: string, tableName: string): Promise<StreamReader> {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.LatestStreamArn) throw new Error(`table ${tableName} has no stream`);
    const streams = new DynamoDBStreamsClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    return new StreamReader(streams, Table.LatestStreamArn);
  }

  /** The records written since the last read (up to `limit` per shard), oldest first per shard. */
  async read(limit = 100): Promise<DynamoDBRecord[]> {
    const { StreamDescription } = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    const records: DynamoDBRecord[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      if (!this.iterators.has(shardId)) this.iterators.set(shardId, await this.firstIterator(shardId));
      const iterator = this.iterators.get(shardId);
      if (!iterator) continue; // a closed shard read to its end
      try {
        const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
        this.iterators.set(shardId, page.NextShardIterator ?? null);
        records.push(...((page.Records ?? []) as DynamoDBRecord[]));
      } catch (error) {
        // An expired iterator, or one behind the shard's trim horizon (DynamoDB Local answers so for a
        // shard it started over): the next read takes a fresh one from the oldest record kept.
        if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)) throw error;
        this.iterators.delete(shardId);
      }
    }
    return records;
  }

  close(): void {
    this.streams.destroy();
  }

  private async firstIterator(shardId: string): Promise<string | null> {
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    return ShardIterator ?? null;
  }
}
