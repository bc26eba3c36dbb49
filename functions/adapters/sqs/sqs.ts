import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';

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

/** SendMessageBatch's most entries a call. */
const BATCH_ENTRIES = 10;

/**
 * Sends messages to a FIFO queue in order, ten a call, each with its group and deduplication id;
 * throws when any was not accepted (the caller's retry sends them again, and SQS drops the ones it has).
 */
export async function sendToFifo(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly { body: string; groupId: string; deduplicationId: string }[],
): Promise<void> {
  for (let start = 0; start < messages.length; start += BATCH_ENTRIES) {
    const { Failed = [] } = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.slice(start, start + BATCH_ENTRIES).map((message, i) => ({
          Id: String(i),
          MessageBody: message.body,
          MessageGroupId: message.groupId,
          MessageDeduplicationId: message.deduplicationId,
        })),
      }),
    );
    if (Failed.length > 0) throw new Error(`the queue refused ${Failed.length} messages: ${Failed[0]?.Message ?? ''}`);
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
