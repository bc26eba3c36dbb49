import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, type IPrincipal, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type ILayerVersion,
  Function as LambdaFunction,
  LayerVersion,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type ResourceAccess, ROUTE_TIMEOUT_SECONDS } from '../functions/platform/routes';
import { settings as handlerSettings, METRICS_NAMESPACE, SERVICE_NAME } from '../functions/platform/settings';
import type { QueueName } from '../functions/platform/workers';
import type { ArticleStore } from './article-store';
import type { DataTable, TableAccess } from './data';
import { FUNCTION_HANDLER, functionCode, searchEngineLayerCode } from './function-bundle';
import type { Identity } from './identity';
import type { ImportUploads } from './import-uploads';
import { grantEmbeddings, type SearchIndexStore } from './search';
import type { GleanerSettings } from './stage-settings';
import type { WorkQueue, WorkQueues } from './work-queue';

/** Memory of every function (`npm run cost` prices Lambda time at it). */
export const FUNCTION_MEMORY_MB = 512;

export interface AppFunctionProps {
  /** Handler module relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly description?: string;
  readonly logRetention: RetentionDays;
  readonly logLevel: GleanerSettings['logLevel'];
  /** @default ROUTE_TIMEOUT_SECONDS */
  readonly timeout?: Duration;
  /** @default FUNCTION_MEMORY_MB */
  readonly memoryMb?: number;
  /** @default ARM_64 */
  readonly architecture?: Architecture;
  /** Whether the function opens the search index: it then gets the search engine's layer (LanceDB). */
  readonly searchEngine?: boolean;
}

/** What the `access` entries of routes, workers and scheduled tasks refer to. */
export interface AccessTargets {
  readonly data: DataTable;
  readonly queues: WorkQueues;
  readonly identity: Identity;
  readonly search: SearchIndexStore;
  readonly articles: ArticleStore;
  readonly uploads: ImportUploads;
}

type QueueAccess = Extract<ResourceAccess, `queue:${string}`>;

/** A Gleaner Lambda function with the defaults every function shares. */
export class AppFunction extends Construct implements IGrantable {
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;
  readonly grantPrincipal: IPrincipal;
  private readonly role: Role;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Own role rather than AWSLambdaBasicExecutionRole, so the function can write to its own log group only.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.function = new LambdaFunction(this, 'Function', {
      code: functionCode(props.entry),
      handler: FUNCTION_HANDLER,
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: props.architecture ?? Architecture.ARM_64,
      memorySize: props.memoryMb ?? FUNCTION_MEMORY_MB,
      timeout: props.timeout ?? Duration.seconds(ROUTE_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      layers: props.searchEngine ? [searchEngineLayer(this)] : [],
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        [handlerSettings.logLevel.name]: props.logLevel,
      },
    });
    this.grantPrincipal = this.function.grantPrincipal;
    this.logGroup.grantWrite(this.function);
    this.acknowledgeWildcard(
      'Resource::*',
      'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
    );
  }

  /** Grants each entry of `access` (see `ResourceAccess`) with the environment variable that goes with it. */
  bindAccess(
    access: readonly ResourceAccess[],
    { data, queues, identity, search, articles, uploads }: AccessTargets,
  ): void {
    for (const entry of access) {
      if (isQueueAccess(entry)) this.bindQueue(queues[entry.slice('queue:'.length) as QueueName]);
      else if (entry === 'mail:send') identity.grantSendMail(this);
      else if (entry === 'oauth:keys') identity.grantOAuthKeys(this);
      else if (entry === 'search:read' || entry === 'search:write') search.grant(this, access.includes('search:write'));
      else if (entry === 'embeddings') grantEmbeddings(this, search.embeddings);
      else if (entry === 'articles:read' || entry === 'articles:write')
        articles.grant(this, entry === 'articles:write');
      else if (entry === 'uploads:write') uploads.grant(this);
      else this.bindTable(data, entry);
    }
  }

  /** Grants `access` to the table and tells the function its name (`TABLE_NAME`). */
  bindTable(data: DataTable, access: TableAccess): void {
    data.grant(this, access);
    this.function.addEnvironment(handlerSettings.tableName.name, data.table.tableName);
    if (access !== 'table:rate-limit') {
      const tableId = Stack.of(data).getLogicalId(data.table.node.defaultChild as CfnElement);
      this.acknowledgeWildcard(
        `Resource::<${tableId}.Arn>/index/*`,
        'Table grants also cover the global secondary indexes of this one table, which IAM names <table ARN>/index/<name>.',
      );
    }
  }

  /** Grants SendMessage on the queue and tells the function its URL in the variable its definition names. */
  bindQueue({ queue, definition }: WorkQueue): void {
    queue.grantSendMessages(this);
    this.function.addEnvironment(definition.urlEnv, queue.queueUrl);
  }

  /** Records why a wildcard cdk-nag finds in this function's policy is intended. */
  acknowledgeWildcard(finding: string, reason: string): void {
    Validations.of(this.role).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });
  }
}

function isQueueAccess(access: ResourceAccess): access is QueueAccess {
  return access.startsWith('queue:');
}

/**
 * The one search engine layer (LanceDB, 160 MB), shared by the functions that search: in the
 * service's stack, also for functions in its nested stacks (the route groups).
 */
function searchEngineLayer(scope: Construct): ILayerVersion {
  let stack = Stack.of(scope);
  while (stack.nestedStackParent) stack = stack.nestedStackParent;
  const id = 'SearchEngineLayer';
  return (
    (stack.node.tryFindChild(id) as ILayerVersion | undefined) ??
    new LayerVersion(stack, id, {
      code: searchEngineLayerCode(),
      compatibleArchitectures: [Architecture.X86_64],
      compatibleRuntimes: [Runtime.NODEJS_24_X],
      description: "LanceDB and Apache Arrow for the search functions, with LanceDB's x86-64 Linux build",
    })
  );
}
