import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueueUnavailableError, type LocalQueue } from './queue';

/**
 * Speaks the SQS JSON protocol (the one @aws-sdk/client-sqs uses) for the local queues, so the
 * handlers' real SQS adapter runs unchanged against them: SendMessage, SendMessageBatch and
 * ChangeMessageVisibility.
 */
export class LocalSqsEndpoint {
  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(queues: readonly LocalQueue[]): Promise<LocalSqsEndpoint> {
    const byName = new Map(queues.map((queue) => [queue.name, queue]));
    const server = createServer((request, response) => void handle(byName, request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new LocalSqsEndpoint(server, `http://127.0.0.1:${port}`);
  }

  queueUrl(queue: LocalQueue): string {
    return `${this.endpoint}/000000000000/${queue.name}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

type Input = Record<string, unknown> & { QueueUrl?: string };

async function handle(queues: Map<string, LocalQueue>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const reply = (status: number, body: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' });
    response.end(JSON.stringify(body));
  };
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const action = String(request.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Input;
  const queue = queues.get(String(input.QueueUrl ?? '').split('/').pop() ?? '');
  if (!queue) return reply(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' });
  try {
    switch (action) {
      case 'SendMessage': {
        const sent = queue.send(String(input.MessageBody), Number(input.DelaySeconds ?? 0));
        return reply(200, { MessageId: sent.id, MD5OfMessageBody: sent.md5 });
      }
      case 'SendMessageBatch': {
        const entries = (input.Entries ?? []) as { Id: string; MessageBody: string; DelaySeconds?: number }[];
        const Successful = entries.map((entry) => {
          const sent = queue.send(entry.MessageBody, entry.DelaySeconds ?? 0);
          return { Id: entry.Id, MessageId: sent.id, MD5OfMessageBody: sent.md5 };
        });
        return reply(200, { Successful, Failed: [] });
      }
      case 'ChangeMessageVisibility': {
        const changed = queue.changeVisibility(String(input.ReceiptHandle), Number(input.VisibilityTimeout));
        return changed ? reply(200, {}) : reply(400, { __type: 'com.amazonaws.sqs#ReceiptHandleIsInvalid', message: 'The receipt handle is not valid.' });
      }
      default:
        return reply(400, { __type: 'com.amazonaws.sqs#InvalidAction', message: `The local queue does not implement ${action}.` });
    }
  } catch (error) {
    if (error instanceof QueueUnavailableError) return reply(503, { __type: 'com.amazonaws.sqs#ServiceUnavailable', message: error.message });
    throw error;
  }
}
