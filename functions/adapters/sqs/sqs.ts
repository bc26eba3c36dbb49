import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { EnrichmentPublisher, EnrichmentRequest } from '../../core/save-bookmark';

/** Sends enrichment requests to the enrichment queue as JSON messages. */
export class SqsEnrichmentPublisher implements EnrichmentPublisher {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async publish(request: EnrichmentRequest): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(request) }));
  }
}

/** The SQS client; an `endpoint` points it at the local stack's queue emulation (any credentials). */
export function createSqsClient(options: { endpoint?: string } = {}): SQSClient {
  return new SQSClient(
    options.endpoint
      ? { endpoint: options.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {},
  );
}
