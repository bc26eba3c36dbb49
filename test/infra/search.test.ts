import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TITAN_V2_MODEL_ID } from '../../functions/adapters/search/embedders';
import { metricNames } from '../../functions/platform/metric-names';
import { settings } from '../../functions/platform/settings';
import { streamConsumers } from '../../functions/platform/workers';
import { writeSearchEngineLayer } from '../../lib/function-bundle';
import { buildGleanerStack, testSettings } from './harness';

let built: ReturnType<typeof buildGleanerStack>;
beforeAll(() => {
  built = buildGleanerStack();
});

const indexer = streamConsumers[0]!;

function indexerFunction() {
  const found = Object.entries(built.template.findResources('AWS::Lambda::Function')).filter(([id]) =>
    id.includes(indexer.id),
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('the search index store', () => {
  it('is an encrypted, versioned bucket closed to the public, with a commit table for concurrent writers', () => {
    built.template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: Match.objectLike({}),
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    built.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'base_uri', KeyType: 'HASH' },
        { AttributeName: 'version', KeyType: 'RANGE' },
      ],
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('the table streams new and old images', () => {
    built.template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
  });
});

describe('the indexer', () => {
  it('reads the stream with batch failures reported, retries bounded and a dead-letter queue', () => {
    const [functionId] = indexerFunction();
    built.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId },
      BatchSize: indexer.batchSize,
      MaximumRetryAttempts: indexer.maxAttempts,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
  });

  it('writes the index from a FIFO queue grouped by shard (one writer per shard), with a FIFO dead-letter queue, and 64 shards', () => {
    const [functionId, fn] = indexerFunction();
    const queues = built.template.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: true } });
    const queue = Object.keys(queues).find((id) => id.startsWith('IndexingQueue'))!;
    const deadLetters = Object.keys(queues).find((id) => id.startsWith('IndexingDeadLetterQueue'))!;
    expect(queues[queue]!.Properties).toMatchObject({
      ContentBasedDeduplication: false,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] }, maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
    });
    built.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId },
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      BatchSize: indexer.queue!.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const variables = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties
      .Environment.Variables;
    expect(variables[settings.indexingQueueUrl.name]).toEqual({ Ref: queue });
    expect(variables[settings.searchShards.name]).toBe('64');
    // Its age and dead-letter alarms are every work queue's (alarms.test.ts).
  });

  it('also runs its re-embedding step on an EventBridge schedule', () => {
    const [functionId] = indexerFunction();
    built.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${indexer.scheduledEveryMinutes} minutes)`,
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })],
    });
  });

  it('is told where the index is, and embeds with the built-in model: no Bedrock variable nor grant', () => {
    const [, fn] = indexerFunction();
    const variables = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties
      .Environment.Variables;
    expect(Object.keys(variables)).toContain(settings.searchIndexUri.name);
    expect(Object.keys(variables)).not.toContain(settings.bedrockEmbeddings.name);
    expect(JSON.stringify(built.template.findResources('AWS::IAM::Policy'))).not.toContain('bedrock:InvokeModel');
  });

  it('with a stage that chose Bedrock, is told which model embeds and may invoke that one model only', () => {
    const bedrock = buildGleanerStack(testSettings({ embeddings: 'bedrock' }));
    const [, fn] = Object.entries(bedrock.template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.includes(indexer.id),
    )!;
    const variables = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties
      .Environment.Variables;
    expect(variables[settings.bedrockEmbeddings.name]).toBe('true');
    expect(variables[settings.embeddingsModel.name]).toBe(TITAN_V2_MODEL_ID);
    bedrock.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'bedrock:InvokeModel',
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(`foundation-model/${TITAN_V2_MODEL_ID}$`)])],
            },
          }),
        ]),
      },
    });
  });

  it('may write the table: it keeps the links between notes beside the index', () => {
    const [, fn] = indexerFunction();
    const role = (fn as { Properties: { Role: { 'Fn::GetAtt': [string, string] } } }).Properties.Role['Fn::GetAtt'][0];
    // The notes' table, not the search index's commit table.
    const [table] = Object.keys(
      built.template.findResources('AWS::DynamoDB::Table', { Properties: { StreamSpecification: Match.anyValue() } }),
    );
    const actions = Object.values(built.template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(role))
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      )
      .filter((statement) => JSON.stringify(statement.Resource).includes(table!))
      .flatMap((statement) => statement.Action);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']),
    );
  });

  it('alarms on failed index and link batches, parked batches and iterator age', () => {
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Threshold: 60_000 });
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: metricNames.indexBatchFailed });
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: metricNames.linkBatchFailed });
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmDescription: Match.stringLikeRegexp('search indexer'),
    });
  });
});

describe('the search routes’ function', () => {
  it('runs on x86-64, reads the index (never writes it) and embeds queries itself', () => {
    const found = Object.entries(built.template.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.includes('SearchNotes'),
    );
    expect(found).toHaveLength(1);
    const [, fn] = found[0]!;
    expect(fn.Properties.Architectures).toEqual(['x86_64']);
    expect(fn.Properties.Environment.Variables).toMatchObject({ [settings.searchIndexUri.name]: expect.anything() });
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    const policies = Object.values(built.template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(roleId),
    );
    const actions = JSON.stringify(policies.map((policy) => policy.Properties.PolicyDocument.Statement));
    // Queries embed with the built-in model, in the bundle.
    expect(actions).not.toContain('bedrock:InvokeModel');
    expect(actions).toContain('s3:GetObject');
    expect(actions).not.toContain('s3:PutObject');
  });
});

describe("the search engine's layer", () => {
  it('is one layer, for x86-64, that every function opening the index has and no other', () => {
    const layers = Object.entries(built.template.findResources('AWS::Lambda::LayerVersion')).filter(([, layer]) =>
      /LanceDB/.test(layer.Properties.Description),
    );
    expect(layers).toHaveLength(1);
    const [layerId, layer] = layers[0]!;
    expect(layer.Properties.CompatibleArchitectures).toEqual(['x86_64']);
    const functions = Object.values(built.template.findResources('AWS::Lambda::Function'));
    const withLayer = functions.filter((fn) => JSON.stringify(fn.Properties.Layers ?? []).includes(layerId));
    // The search routes' function, the MCP server (its search_notes tool) and the indexer.
    expect(withLayer.map((fn) => fn.Properties.Description).sort()).toEqual([
      'POST /mcp',
      `${indexer.id}: reads the table's stream`,
      "functions/search-notes/handler.ts: the owner's routes",
    ]);
    for (const fn of withLayer) expect(fn.Properties.Architectures).toEqual(['x86_64']);
  });
});

describe('writeSearchEngineLayer', () => {
  /** A node_modules folder with LanceDB, Arrow, and the named builds of LanceDB installed. */
  function nodeModulesWith(builds: Record<string, string>): string {
    const root = mkdtempSync(path.join(tmpdir(), 'gleaner-layer-'));
    const write = (name: string, manifest: object) => {
      mkdirSync(path.join(root, name), { recursive: true });
      writeFileSync(path.join(root, name, 'package.json'), JSON.stringify({ name, ...manifest }));
    };
    write('@lancedb/lancedb', {
      version: '0.31.0',
      dependencies: { 'reflect-metadata': '0.2.2' },
      optionalDependencies: {
        openai: '4.29.2',
        '@lancedb/lancedb-darwin-arm64': '0.31.0',
        '@lancedb/lancedb-linux-x64-gnu': '0.31.0',
        '@lancedb/lancedb-linux-arm64-gnu': '0.31.0',
      },
    });
    write('reflect-metadata', { version: '0.2.2' });
    write('apache-arrow', { version: '18.1.0' });
    for (const [name, version] of Object.entries(builds)) write(name, { version });
    return root;
  }

  it("ships LanceDB's x86-64 Linux build and no other platform's", () => {
    const nodeModules = nodeModulesWith({
      '@lancedb/lancedb-linux-x64-gnu': '0.31.0',
      '@lancedb/lancedb-darwin-arm64': '0.31.0',
    });
    const outdir = mkdtempSync(path.join(tmpdir(), 'gleaner-layer-out-'));
    writeSearchEngineLayer(outdir, nodeModules);
    const shipped = path.join(outdir, 'nodejs/node_modules');
    expect(readdirSync(path.join(shipped, '@lancedb')).sort()).toEqual(['lancedb', 'lancedb-linux-x64-gnu']);
    expect(readdirSync(shipped).sort()).toEqual(['@lancedb', 'apache-arrow', 'reflect-metadata']);
  });

  it.each([
    ['macOS on arm64', { '@lancedb/lancedb-darwin-arm64': '0.31.0' }, /which npm installs only on x86-64 Linux/],
    ['another version', { '@lancedb/lancedb-linux-x64-gnu': '0.30.0' }, /but 0\.30\.0 is installed/],
  ])('refuses to synth from %s, saying how to add the build', (_, builds, reason) => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'gleaner-layer-out-'));
    expect(() => writeSearchEngineLayer(outdir, nodeModulesWith(builds))).toThrow(reason);
    expect(() => writeSearchEngineLayer(outdir, nodeModulesWith(builds))).toThrow(
      /npm install --no-save --force --os=linux --cpu=x64 @lancedb\/lancedb-linux-x64-gnu@0\.31\.0/,
    );
  });
});
