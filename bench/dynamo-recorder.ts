import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RoundTripChain } from '../test/support/round-trips';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** Capacity units DynamoDB reported for the calls since the last reset. */
export interface ConsumedUnits {
  read: number;
  write: number;
}

/**
 * A pass-through proxy in front of DynamoDB Local for a local stack to talk to: it records each
 * call's place in the chain of waits, and asks every call for its consumed capacity (DynamoDB
 * Local signs nothing back, so the request may be rewritten) and adds it up.
 */
export async function startDynamoRecorder(upstream: string) {
  const chain = new RoundTripChain();
  const units: ConsumedUnits = { read: 0, write: 0 };
  const target = new URL(upstream);
  const server = createServer(async (incoming, answer) => {
    const operation = String(incoming.headers['x-amz-target'] ?? 'unknown').replace(/^DynamoDB_\d+\./, '');
    const finished = chain.start(operation);
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), ReturnConsumedCapacity: 'TOTAL' }));
    const headers = { ...incoming.headers, 'content-length': String(body.length) };
    const forward = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers }, async (response) => {
      const parts: Buffer[] = [];
      for await (const part of response) parts.push(part as Buffer);
      const payload = Buffer.concat(parts);
      countUnits(operation, payload);
      answer.writeHead(response.statusCode ?? 502, response.headers);
      answer.end(payload);
      finished();
    });
    forward.end(body);
  });

  function countUnits(operation: string, payload: Buffer): void {
    const consumed = (JSON.parse(payload.toString('utf8') || '{}') as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity;
    const total = [consumed ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
    units[READS.has(operation) ? 'read' : 'write'] += total;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    chain,
    units,
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reset(): void {
      chain.reset();
      units.read = 0;
      units.write = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
