import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RoundTripChain } from '../test/support/round-trips';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** A call as it went to DynamoDB: its operation, how many items it names, and its request's size. */
export interface RecordedCall {
  readonly operation: string;
  readonly items: number;
  readonly bytes: number;
}

/** Capacity units DynamoDB reported for the calls since the last reset. */
export interface ConsumedUnits {
  read: number;
  write: number;
}

/**
 * A pass-through proxy in front of DynamoDB Local for a local stack to talk to: it records each
 * call's place in the chain of waits and its shape (operation, items, bytes), and asks every call for its consumed capacity (DynamoDB
 * Local signs nothing back, so the request may be rewritten) and adds it up.
 */
export async function startDynamoRecorder(upstream: string) {
  const chain = new RoundTripChain();
  const units: ConsumedUnits = { read: 0, write: 0 };
  const calls: RecordedCall[] = [];
  const target = new URL(upstream);
  const server = createServer(async (incoming, answer) => {
    const operation = String(incoming.headers['x-amz-target'] ?? 'unknown').replace(/^DynamoDB_\d+\./, '');
    const finished = chain.start(operation);
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    calls.push({ operation, items: itemCount(request), bytes: Buffer.concat(chunks).length });
    const body = Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'TOTAL' }));
    const headers = { ...incoming.headers, 'content-length': String(body.length) };
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      async (response) => {
        const parts: Buffer[] = [];
        for await (const part of response) parts.push(part as Buffer);
        const payload = Buffer.concat(parts);
        countUnits(operation, payload);
        answer.writeHead(response.statusCode ?? 502, response.headers);
        answer.end(payload);
        finished();
      },
    );
    forward.end(body);
  });

  function countUnits(operation: string, payload: Buffer): void {
    const consumed = (
      JSON.parse(payload.toString('utf8') || '{}') as {
        ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
      }
    ).ConsumedCapacity;
    const total = [consumed ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
    units[READS.has(operation) ? 'read' : 'write'] += total;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    chain,
    /** The calls since the last reset, in the order they started. */
    calls,
    units,
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reset(): void {
      chain.reset();
      calls.splice(0);
      units.read = 0;
      units.write = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Items a request writes or reads: a transaction's, a batch's keys; one for the rest. */
function itemCount(request: {
  TransactItems?: unknown[];
  RequestItems?: Record<string, { Keys?: unknown[] }>;
}): number {
  if (request.TransactItems) return request.TransactItems.length;
  if (request.RequestItems)
    return Object.values(request.RequestItems).reduce((sum, table) => sum + (table.Keys?.length ?? 0), 0);
  return 1;
}
