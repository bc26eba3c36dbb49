import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LocalQueue, QueueUnavailableError } from './queue';

/**
 * Speaks the SQS JSON protocol (the one @aws-sdk/client-sqs uses) for the local queues, so the
 * handlers' real SQS adapter runs unchanged against them: SendMessage, SendMessageBatch (with a FIFO
 * queue's message group and deduplication id) and ChangeMessageVisibility, the calls Gleaner makes.
 */
export class LocalSqsEndpoint {
  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(queues: readonly LocalQueue[]): Promise<LocalSqsEndpoint> {
    const byName = new Map(queues.map((queue) => [queue.name, queue]));
    // A request this endpoint cannot make sense of is an error answer, never a crash of `npm start`.
    const server = createServer((request, response) =>
      handle(byName, request, response).catch((error: unknown) => {
        if (!response.headersSent)
          reply(response, 500, { __type: 'com.amazonaws.sqs#InternalError', message: String(error) });
      }),
    );
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

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' });
  response.end(JSON.stringify(body));
}

function parseInput(text: string): Input | null {
  try {
    const input = JSON.parse(text || '{}') as unknown;
    return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Input) : null;
  } catch {
    return null;
  }
}

async function handle(
  queues: Map<string, LocalQueue>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const action = String(request.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
  const input = parseInput(Buffer.concat(chunks).toString('utf8'));
  if (!input)
    return reply(response, 400, {
      __type: 'com.amazonaws.sqs#InvalidRequest',
      message: 'The request body is not a JSON object.',
    });
  const queue = queues.get(
    String(input.QueueUrl ?? '')
      .split('/')
      .pop() ?? '',
  );
  if (!queue)
    return reply(response, 400, {
      __type: 'com.amazonaws.sqs#QueueDoesNotExist',
      message: 'The specified queue does not exist.',
    });
  try {
    switch (action) {
      case 'SendMessage': {
        const sent = queue.send(String(input.MessageBody), Number(input.DelaySeconds ?? 0), fifoOf(input));
        return reply(response, 200, { MessageId: sent.id, MD5OfMessageBody: sent.md5 });
      }
      case 'SendMessageBatch': {
        const entries = Array.isArray(input.Entries) ? (input.Entries as Record<string, unknown>[]) : [];
        const Successful = entries.map((entry) => {
          const sent = queue.send(String(entry.MessageBody), Number(entry.DelaySeconds ?? 0), fifoOf(entry));
          return { Id: String(entry.Id), MessageId: sent.id, MD5OfMessageBody: sent.md5 };
        });
        return reply(response, 200, { Successful, Failed: [] });
      }
      case 'ChangeMessageVisibility': {
        const changed = queue.changeVisibility(String(input.ReceiptHandle), Number(input.VisibilityTimeout));
        return changed
          ? reply(response, 200, {})
          : reply(response, 400, {
              __type: 'com.amazonaws.sqs#ReceiptHandleIsInvalid',
              message: 'The receipt handle is not valid.',
            });
      }
      default:
        return reply(response, 400, {
          __type: 'com.amazonaws.sqs#InvalidAction',
          message: `The local queue does not implement ${action}.`,
        });
    }
  } catch (error) {
    if (error instanceof QueueUnavailableError)
      return reply(response, 503, { __type: 'com.amazonaws.sqs#ServiceUnavailable', message: error.message });
    throw error;
  }
}

/** A FIFO message's group and deduplication id, when the request names a group. */
function fifoOf(input: Record<string, unknown>) {
  if (input.MessageGroupId === undefined) return undefined;
  return { groupId: String(input.MessageGroupId), deduplicationId: String(input.MessageDeduplicationId ?? '') };
}
