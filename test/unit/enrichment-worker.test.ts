import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { settings } from '../../functions/platform/settings';
import { workerContext } from '../../functions/queue-consumer/enrichment-worker';
import { sqsRecord } from '../support/factories';

const sqs = mockClient(SQSClient);
afterAll(() => sqs.restore());

describe('a worker delaying a redelivery', () => {
  it('changes the visibility at the URL of the queue it drains, in whatever partition (aws-cn here)', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    const queueUrl = 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/Gleaner-EnrichmentQueue';
    const { worker } = workerContext({
      TABLE_NAME: 't',
      AWS_REGION: 'cn-north-1',
      [settings.sourceQueueUrl.name]: queueUrl,
    });
    const record = sqsRecord({
      receiptHandle: 'r1',
      body: '{}',
      queueArn: 'arn:aws-cn:sqs:cn-north-1:123456789012:Gleaner-EnrichmentQueue',
    });
    await worker.delayRedelivery(record, 60);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: queueUrl, ReceiptHandle: 'r1', VisibilityTimeout: 60 },
    ]);
  });

  it('is not built without the queue URL, rather than guess one from the region', () => {
    expect(() => workerContext({ TABLE_NAME: 't' })).toThrow(settings.sourceQueueUrl.name);
  });
});
