import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Environment } from '../../platform/env';
import { setting, settings } from '../../platform/settings';

export interface DynamoClients {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
}

/**
 * One place that builds the DynamoDB clients. An `endpoint` points them at DynamoDB Local, which
 * accepts any credentials, so fixed dummy ones are used there instead of the AWS credential chain.
 * `instrument` (the Tracer's capture, from the handler) traces every call.
 */
export function createDynamoClients(
  options: { endpoint?: string; region?: string; maxAttempts?: number; instrument?: <C>(client: C) => C } = {},
): DynamoClients {
  const instrument = options.instrument ?? ((client) => client);
  // Instrumented before the document client is built on it, which shares its middleware stack.
  const client = instrument(
    new DynamoDBClient({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      maxAttempts: options.maxAttempts,
      ...(options.endpoint
        ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    }),
  );
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, doc };
}

/** A function's table, from its environment: its name, and DynamoDB Local's endpoint when one is set. */
export function tableFromEnv(
  env: Environment,
  instrument?: <C>(client: C) => C,
): DynamoClients & { readonly tableName: string } {
  return {
    tableName: setting(env, settings.tableName),
    ...createDynamoClients({ endpoint: setting(env, settings.dynamoEndpoint), instrument }),
  };
}

/** Whether DynamoDB (Local) at `endpoint` answers a request now: one ListTables, no retries. */
export async function dynamoAnswers(endpoint: string): Promise<boolean> {
  const { client } = createDynamoClients({ endpoint, region: 'local', maxAttempts: 1 });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}
