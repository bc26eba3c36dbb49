import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

/** Sends messages of one kind to one queue, as JSON. */
export class SqsJsonPublisher<T> {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async publish(message: T): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
  }
}

/** Delays the next delivery of a received message: how a worker backs off before a retry. */
export async function delayRedelivery(
  sqs: SQSClient,
  queueUrl: string,
  receiptHandle: string,
  seconds: number,
): Promise<void> {
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}

/**
 * The SQS client; an `endpoint` points it at the local stack's queue emulation (any credentials).
 * `instrument` (the Tracer's capture, from the handler) traces every call.
 */
export function createSqsClient(options: { endpoint?: string; instrument?: <C>(client: C) => C } = {}): SQSClient {
  const client = new SQSClient(
    options.endpoint
      ? { endpoint: options.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {},
  );
  return options.instrument ? options.instrument(client) : client;
}
