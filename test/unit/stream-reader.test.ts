import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { StreamReader } from '../../functions/adapters/search/stream-reader';

const dynamo = mockClient(DynamoDBClient);
const streams = mockClient(DynamoDBStreamsClient);
afterAll(() => {
  dynamo.restore();
  streams.restore();
});

const record = (id: string) => ({ eventID: id, eventName: 'INSERT' as const, dynamodb: {} });

beforeEach(() => {
  dynamo.reset();
  streams.reset();
  dynamo.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: 'arn:stream' } });
  streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
  let iterators = 0;
  streams.on(GetShardIteratorCommand).callsFake(() => ({ ShardIterator: `from-oldest-${++iterators}` }));
});

describe('the local stack’s stream reader', () => {
  it.each([
    ['behind the trim horizon', new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} })],
    ['expired', new ExpiredIteratorException({ message: 'expired', $metadata: {} })],
  ])(
    'takes a fresh iterator from the oldest record for a shard whose iterator is %s, and goes on reading',
    async (_, error) => {
      streams
        .on(GetRecordsCommand, { ShardIterator: 'from-oldest-1' })
        .resolves({ Records: [record('a')], NextShardIterator: 'next' })
        .on(GetRecordsCommand, { ShardIterator: 'next' })
        .rejects(error)
        .on(GetRecordsCommand, { ShardIterator: 'from-oldest-2' })
        .resolves({ Records: [record('b')], NextShardIterator: 'after-b' });
      const reader = await StreamReader.open(new DynamoDBClient({ region: 'local' }), 'http://localhost:1', 'table');
      expect((await reader.read()).map((found) => found.eventID)).toEqual(['a']);
      expect(await reader.read()).toEqual([]);
      expect((await reader.read()).map((found) => found.eventID)).toEqual(['b']);
      reader.close();
    },
  );

  it('passes on any other failure', async () => {
    streams.on(GetRecordsCommand).rejects(new Error('connection refused'));
    const reader = await StreamReader.open(new DynamoDBClient({ region: 'local' }), 'http://localhost:1', 'table');
    await expect(reader.read()).rejects.toThrow('connection refused');
    reader.close();
  });
});
