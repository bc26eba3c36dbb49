import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderPage } from '../../functions/core/web/layout';
import { routeFunctionDescription, routeFunctions, routeMethods, routes } from '../../functions/platform/routes';
import { rateLimitSettings, settings } from '../../functions/platform/settings';
import { tableDefinition } from '../../functions/platform/table-definition';
import { queues, scheduledTasks, streamConsumers, workers } from '../../functions/platform/workers';
import { DEFAULT_STAGE, type GleanerSettings, parseSettings } from '../../lib/stage-settings';
import { webAssets } from '../../lib/web-assets';
import { workerTimeout } from '../../lib/work-queue';
import { buildWebAssets, webAssetsVersion } from '../../web/build';
import {
  acknowledgments,
  apiMethods,
  appFunctions,
  buildGleanerStack,
  nagViolations,
  onlyResource,
  overResourceBudget,
  RESOURCE_BUDGET,
  ROOT_RESOURCE_BUDGET,
  stageResourcePath,
  testContext,
  testSettings,
  throttleOf,
} from './harness';

let built: ReturnType<typeof buildGleanerStack>;
// Synthesizing the stack and its nested stacks takes a busy 2-core machine over a minute.
beforeAll(() => {
  built = buildGleanerStack();
}, 180_000);

const saveRoute = routes.find((route) => route.id === 'SaveBookmark')!;
const cdnRoutes = routes.filter((route) => route.cdn);
const pageWorker = workers.find((worker) => worker.id === 'PageWorker')!;
const faviconWorker = workers.find((worker) => worker.id === 'FaviconWorker')!;

type FunctionResource = [string, { Properties: Record<string, any> }];

function routeFunction(route = saveRoute, template: Template = built.template): FunctionResource {
  return onlyResource(template, 'AWS::Lambda::Function', { Description: routeFunctionDescription(route) });
}

/** The function of a worker or scheduled task, whose description starts with its id. */
function backgroundFunction(id: string, template: Template = built.template): FunctionResource {
  return onlyResource(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp(`^${id}:`) });
}

function allFunctions(template: Template = built.template) {
  return appFunctions(template);
}

function environmentOf([, fn]: FunctionResource): Record<string, unknown> {
  return fn.Properties.Environment.Variables;
}

/** The statements of the policy on a function's role, as actions and the resource they apply to. */
function grantsOf([, fn]: FunctionResource) {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const [, policy] = onlyResource(built.template, 'AWS::IAM::Policy', { Roles: [{ Ref: roleId }] });
  const statements = policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
  return statements.map((statement) => ({
    actions: [statement.Action].flat(),
    resource: JSON.stringify(statement.Resource),
  }));
}

/** Logical ids of a queue of workers.ts and of its dead-letter queue (constructs `Enrichment/Queue`, `Enrichment/DeadLetterQueue`). */
function queueIds(name: string) {
  const prefix = name.charAt(0).toUpperCase() + name.slice(1);
  const ids = Object.keys(built.template.findResources('AWS::SQS::Queue'));
  const find = (child: string) => ids.find((id) => id.startsWith(`${prefix}${child}`))!;
  return { queueId: find('Queue'), deadLetterQueueId: find('DeadLetterQueue') };
}

function distributionConfig() {
  const [, distribution] = onlyResource(built.template, 'AWS::CloudFront::Distribution');
  return distribution.Properties.DistributionConfig as Record<string, any>;
}

describe('data table', () => {
  it('is built from the shared table definition', () => {
    const { partitionKey, sortKey, timeToLiveAttribute, globalSecondaryIndexes } = tableDefinition;
    const keySchema = (hash: string, range: string) => [
      { AttributeName: hash, KeyType: 'HASH' },
      { AttributeName: range, KeyType: 'RANGE' },
    ];
    built.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: keySchema(partitionKey, sortKey),
      GlobalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
    });
  });

  it('is on-demand, encrypted, point-in-time recoverable and never deleted with the stack', () => {
    built.template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('functions', () => {
  it('gives every route (routes of one handler module share it), worker and scheduled task its own arm64 Node.js 24 function with its own log group', () => {
    // Functions that open the search index run on x86-64 (LanceDB's native module): the stream
    // consumers (see test/infra/search.test.ts) and the search routes' function.
    const functions = [
      ...routeFunctions(routes).map((route) => ({
        found: routeFunction(route),
        architecture: route.access.includes('search:read') ? 'x86_64' : 'arm64',
      })),
      ...[...workers, ...scheduledTasks].map(({ id }) => ({ found: backgroundFunction(id), architecture: 'arm64' })),
    ];
    expect(allFunctions()).toHaveLength(functions.length + streamConsumers.length);
    for (const {
      found: [, fn],
      architecture,
    } of functions) {
      expect(fn.Properties).toMatchObject({
        Architectures: [architecture],
        Runtime: 'nodejs24.x',
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
      });
      const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(built.template.toJSON().Resources[logGroupId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: testContext.logRetentionDays },
      });
    }
  });

  it('configures the save function from its access list and the settings', () => {
    const [, fn] = routeFunction();
    expect(fn.Properties.Environment.Variables).toEqual({
      POWERTOOLS_SERVICE_NAME: 'gleaner',
      POWERTOOLS_METRICS_NAMESPACE: 'Gleaner',
      LOG_LEVEL: 'DEBUG',
      TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) },
      ENRICHMENT_QUEUE_URL: { Ref: expect.stringMatching(/^EnrichmentQueue/) },
      SAVE_RATE_LIMIT: testContext.rateLimits.save,
      CORS_ALLOWED_ORIGINS: 'https://extension.example',
      // Every route function is told the public address (lib/api.ts usePublicBaseUrl).
      PUBLIC_BASE_URL: expect.objectContaining({ 'Fn::Join': expect.any(Array) }),
    });
  });

  it('lets the save function write the table and send to the queue, and nothing broader', () => {
    const grants = grantsOf(routeFunction());

    expect(grants).toContainEqual({
      actions: expect.arrayContaining(['sqs:SendMessage']),
      resource: expect.stringMatching(/EnrichmentQueue\w+","Arn"/),
    });
    expect(grants).toContainEqual({
      actions: expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']),
      resource: expect.stringMatching(/DataTable/),
    });
    const actions = grants.flatMap((grant) => grant.actions);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('sqs:ReceiveMessage');
  });

  it('lets the MCP function read the search index and embed queries, use the table and the enrichment queue, and nothing broader', () => {
    const mcp = routeFunction(routes.find((route) => route.id === 'Mcp'));
    expect(mcp[1].Properties).toMatchObject({ Architectures: ['x86_64'], MemorySize: 1024 });
    expect(Object.keys(environmentOf(mcp))).toEqual(
      expect.arrayContaining([
        settings.tableName.name,
        settings.searchIndexUri.name,
        settings.enrichmentQueueUrl.name,
        rateLimitSettings.owner.name,
      ]),
    );
    const grants = grantsOf(mcp);
    const actions = grants.flatMap((grant) => grant.actions);
    // Queries embed with the built-in model (a stage may choose Bedrock: test/infra/search.test.ts).
    expect(actions).not.toContain('bedrock:InvokeModel');
    expect(actions).toContain('sqs:SendMessage');
    // Reading the index only: the indexer alone writes it.
    const onIndex = grants
      .filter((grant) => /SearchIndexBucket/.test(grant.resource))
      .flatMap((grant) => grant.actions);
    expect(onIndex).toContain('s3:GetObject*');
    expect(onIndex).not.toContain('s3:PutObject');
    expect(onIndex).not.toContain('s3:DeleteObject*');
    const onTable = grants.filter((grant) => /DataTable/.test(grant.resource)).flatMap((grant) => grant.actions);
    expect(onTable).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']));
    expect(onTable).not.toContain('dynamodb:Scan');
    expect(actions.filter((action) => action.includes('*') && !action.startsWith('s3:'))).toEqual([]);
  });

  it('tells only the CloudFront routes to trust its viewer-address and host headers', () => {
    for (const route of routes) {
      expect(environmentOf(routeFunction(route)).TRUST_CDN_HEADERS, route.id).toBe(route.cdn ? 'true' : undefined);
    }
  });

  it("gives every route function the public address, the distribution's domain by default: OAuth issuer, links in mail, cookies, feed URLs", () => {
    for (const route of routeFunctions(routes))
      expect(environmentOf(routeFunction(route)).PUBLIC_BASE_URL, route.id).toEqual({
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^CdnDistribution/), 'DomainName'] }]],
      });
  });

  it('never widens what the workers may fetch', () => {
    for (const fn of allFunctions()) {
      expect(environmentOf(fn), fn[0]).not.toHaveProperty('GLEANER_FETCH_ALLOW');
    }
  });
});

describe('REST API', () => {
  it('has a Lambda proxy method for every route', () => {
    const methods = apiMethods(built.api);
    for (const route of routes) {
      const method = methods.find(
        (candidate) => candidate.path === route.path && candidate.httpMethod === route.method,
      );
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      expect(method!.properties.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(JSON.stringify(method!.properties.Integration.Uri)).toContain(routeFunction(route)[0]);
    }
  });

  it('answers HEAD on the feed and icon routes with the GET function, keyed and throttled alike, and not on the save route', () => {
    const methods = apiMethods(built.api);
    const heads = methods.filter((method) => method.httpMethod === 'HEAD');
    expect(heads.map((method) => method.path).sort()).toEqual(
      routes
        .filter((route) => route.answersHead)
        .map((route) => route.path)
        .sort(),
    );
    expect(heads.map((method) => method.path)).not.toContain(saveRoute.path);
    for (const head of heads) {
      const get = methods.find((method) => method.path === head.path && method.httpMethod === 'GET')!;
      expect(head.properties.Integration.Uri).toEqual(get.properties.Integration.Uri);
      expect(head.properties.ApiKeyRequired).toBe(get.properties.ApiKeyRequired);
    }
    const feed = cdnRoutes.find((route) => route.id === 'GetPublishedFeedRss')!;
    expect(heads.find((head) => head.path === feed.path)!.properties.ApiKeyRequired).toBe(true);
    built.api.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: 'HEAD',
          ResourcePath: stageResourcePath(feed.path),
          ThrottlingRateLimit: throttleOf('feed').rateLimit,
        }),
      ]),
    });
    built.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      ApiStages: [
        Match.objectLike({
          Throttle: Match.objectLike({
            [`${feed.path}/HEAD`]: Match.objectLike({ RateLimit: throttleOf('feed').rateLimit }),
          }),
        }),
      ],
    });
  });

  it('answers CORS preflight on the save resource', () => {
    const preflight = apiMethods(built.api).find(
      (method) => method.path === saveRoute.path && method.httpMethod === 'OPTIONS',
    );
    expect(preflight?.properties.Integration.IntegrationResponses[0].ResponseParameters).toMatchObject({
      'method.response.header.Access-Control-Allow-Headers': "'Authorization,Content-Type,Idempotency-Key'",
      'method.response.header.Access-Control-Allow-Methods': "'OPTIONS,POST'",
      'method.response.header.Access-Control-Allow-Origin': "'https://extension.example'",
    });
    // Binary media types */* would otherwise make the mock integration fail on the empty body.
    expect(preflight?.properties.Integration.ContentHandling).toBe('CONVERT_TO_TEXT');
  });

  it.each(['GetPublishedFeed', 'GetPublishedFeedRss'])(
    'answers CORS preflight on %s from any origin, for conditional GET',
    (routeId) => {
      const route = routes.find((candidate) => candidate.id === routeId)!;
      const preflight = apiMethods(built.api).find(
        (method) => method.path === route.path && method.httpMethod === 'OPTIONS',
      );
      expect(preflight?.properties.Integration.IntegrationResponses[0].ResponseParameters).toMatchObject({
        'method.response.header.Access-Control-Allow-Headers': "'If-None-Match,If-Modified-Since'",
        'method.response.header.Access-Control-Allow-Methods': "'OPTIONS,GET'",
        'method.response.header.Access-Control-Allow-Origin': "'*'",
        'method.response.header.Access-Control-Max-Age': "'600'",
      });
      expect(preflight?.properties.Integration.ContentHandling).toBe('CONVERT_TO_TEXT');
      expect(environmentOf(routeFunction(route))).not.toHaveProperty('CORS_ALLOWED_ORIGINS');
    },
  );

  it('answers the methods a route path does not take with 405 and Allow, from a mock', () => {
    const methods = apiMethods(built.api);
    const refusal = (path: string) =>
      methods.find((method) => method.path === path && method.httpMethod === 'ANY')?.properties;
    expect(refusal(saveRoute.path)).toMatchObject({
      AuthorizationType: 'NONE',
      MethodResponses: [{ StatusCode: '405', ResponseParameters: { 'method.response.header.Allow': true } }],
      Integration: {
        Type: 'MOCK',
        ContentHandling: 'CONVERT_TO_TEXT',
        RequestTemplates: { 'application/json': '{"statusCode": 405}' },
        IntegrationResponses: [
          {
            StatusCode: '405',
            ResponseParameters: { 'method.response.header.Allow': "'POST, OPTIONS'" },
            ResponseTemplates: { 'application/json': '{"detail":"Method Not Allowed"}' },
          },
        ],
      },
    });
    for (const route of routes) expect(refusal(route.path), route.id).toBeDefined();
    const rss = routes.find((route) => route.id === 'GetPublishedFeedRss')!;
    expect(
      refusal(rss.path)?.Integration.IntegrationResponses[0].ResponseParameters['method.response.header.Allow'],
    ).toBe("'GET, HEAD, OPTIONS'");
  });

  it('serves base64 bodies from the functions (icons) as bytes', () => {
    built.template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  it('lets only CloudFront, by its API key, call the cached routes', () => {
    const methods = apiMethods(built.api);
    for (const route of routes) {
      const method = methods.find(
        (candidate) => candidate.path === route.path && candidate.httpMethod === route.method,
      )!;
      expect(method.properties.ApiKeyRequired, route.id).toBe(route.cdn);
    }
    expect(cdnRoutes.map((route) => route.id).sort()).toEqual([
      'GetArticleImage',
      'GetFeedAtom',
      'GetFeedEmbedScript',
      'GetFeedPage',
      'GetIcon',
      'GetJsonFeed',
      'GetOpenApiDocument',
      'GetOwnerApiDocument',
      'GetPublishedFeed',
      'GetPublishedFeedRss',
    ]);
  });

  it('takes the API key value from a generated secret, never from the template', () => {
    const [secretId, secret] = onlyResource(built.template, 'AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('origin key'),
    });
    expect(secret.Properties.GenerateSecretString).toEqual({
      ExcludePunctuation: true,
      PasswordLength: expect.any(Number),
    });
    expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(30);
    const [, apiKey] = onlyResource(built.template, 'AWS::ApiGateway::ApiKey');
    expect(apiKey.Properties.Value).toEqual(secretReference(secretId));
    // A named key cannot be replaced, and a new value replaces the key.
    expect(apiKey.Properties).not.toHaveProperty('Name');
  });

  it('rotates the origin key by version: a new secret and key CloudFront sends, the previous one still accepted, older ones gone', () => {
    const keysAt = (cdnOriginKeyVersion: number) => {
      const { template } = buildGleanerStack(testSettings({ cdnOriginKeyVersion }));
      const secrets = Object.entries(
        template.findResources('AWS::SecretsManager::Secret', {
          Properties: { Description: Match.stringLikeRegexp('origin key') },
        }),
      );
      const versionOf = (secretId: string) =>
        /origin key version (\d+)/.exec(secrets.find(([id]) => id === secretId)![1].Properties.Description)![1];
      const referenced = (value: unknown) =>
        secrets
          .filter(([id]) => JSON.stringify(value) === JSON.stringify(secretReference(id)))
          .map(([id]) => versionOf(id));
      const apiKeys = Object.entries(template.findResources('AWS::ApiGateway::ApiKey'));
      for (const [, apiKey] of apiKeys) expect(apiKey.Properties).not.toHaveProperty('Name');
      const planKeyIds = Object.values(template.findResources('AWS::ApiGateway::UsagePlanKey')).map(
        (planKey) => planKey.Properties.KeyId.Ref as string,
      );
      const origins = onlyResource(template, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig
        .Origins as Record<string, any>[];
      return {
        secrets: secrets.map(([id]) => versionOf(id)).sort(),
        accepted: apiKeys
          .filter(([id]) => planKeyIds.includes(id))
          .flatMap(([, key]) => referenced(key.Properties.Value))
          .sort(),
        sent: [
          ...new Set(
            origins.flatMap((origin) =>
              (origin.OriginCustomHeaders ?? []).flatMap((header: { HeaderValue: unknown }) =>
                referenced(header.HeaderValue),
              ),
            ),
          ),
        ],
      };
    };
    expect(keysAt(1)).toEqual({ secrets: ['1'], accepted: ['1'], sent: ['1'] });
    expect(keysAt(2)).toEqual({ secrets: ['1', '2'], accepted: ['1', '2'], sent: ['2'] });
    expect(keysAt(3)).toEqual({ secrets: ['2', '3'], accepted: ['2', '3'], sent: ['3'] });
  });

  it("owns the account's API Gateway logging role only in the default stage, unless told otherwise", () => {
    const accounts = (settings: GleanerSettings) =>
      Object.keys(buildGleanerStack(settings).template.findResources('AWS::ApiGateway::Account')).length;
    expect(accounts(parseSettings({ ...testContext, stage: DEFAULT_STAGE }))).toBe(1);
    expect(accounts(parseSettings({ ...testContext, stage: 'dev' }))).toBe(0);
    expect(accounts(parseSettings({ ...testContext, stage: 'dev', apiGatewayAccountRole: true }))).toBe(1);
    expect(accounts(parseSettings({ ...testContext, stage: DEFAULT_STAGE, apiGatewayAccountRole: false }))).toBe(0);
  });

  it('throttles the keyed requests from CloudFront by the usage plan', () => {
    const [apiKeyId] = onlyResource(built.template, 'AWS::ApiGateway::ApiKey');
    const [planId, plan] = onlyResource(built.template, 'AWS::ApiGateway::UsagePlan');
    built.template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', {
      KeyId: { Ref: apiKeyId },
      KeyType: 'API_KEY',
      UsagePlanId: { Ref: planId },
    });
    expect(plan.Properties.Description).toMatch(/API key/);
  });

  it("takes each quota's rate and burst from stack parameters that default to cdk.json context, so console edits survive deploys", () => {
    const parameters = built.template.toJSON().Parameters as Record<string, { Type: string; Default: unknown }>;
    for (const [quota, { rateLimit, burstLimit }] of Object.entries(testContext.throttle)) {
      const refs = throttleOf(quota);
      expect(parameters[refs.rateLimit.Ref]).toMatchObject({ Type: 'Number', Default: rateLimit });
      expect(parameters[refs.burstLimit.Ref]).toMatchObject({ Type: 'Number', Default: burstLimit });
    }
  });

  it('throttles each route by its quota and the rest of the stage by the default one, logging every method and metering each route', () => {
    const [, stage] = onlyResource(built.api, 'AWS::ApiGateway::Stage', {
      StageName: 'test',
      TracingEnabled: true,
    });
    const settings = stage.Properties.MethodSettings as Record<string, unknown>[];
    const stageDefault = throttleOf('default');
    expect(settings.find((entry) => entry.ResourcePath === '/*')).toEqual({
      HttpMethod: '*',
      ResourcePath: '/*',
      LoggingLevel: 'ERROR',
      DataTraceEnabled: false,
      MetricsEnabled: false,
      ThrottlingRateLimit: stageDefault.rateLimit,
      ThrottlingBurstLimit: stageDefault.burstLimit,
    });
    // A method's entry replaces the stage's settings, so each must carry the logging again.
    const routeEntries = settings.filter((entry) => entry.ResourcePath !== '/*');
    expect(routeEntries).toHaveLength(routes.flatMap(routeMethods).length);
    for (const route of routes) {
      for (const method of routeMethods(route)) {
        expect(routeEntries).toContainEqual({
          HttpMethod: method,
          ResourcePath: stageResourcePath(route.path),
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: true,
          ThrottlingRateLimit: throttleOf(route.throttle).rateLimit,
          ThrottlingBurstLimit: throttleOf(route.throttle).burstLimit,
        });
      }
    }
    expect(JSON.stringify(stage.Properties.AccessLogSetting.DestinationArn)).toMatch(/ApiAccessLogs/);
  });

  it('throttles in the usage plan only what carries the API key: the cached routes, not the save route', () => {
    const [, plan] = onlyResource(built.template, 'AWS::ApiGateway::UsagePlan', {
      UsagePlanName: 'GleanerTest-throttles',
    });
    expect(plan.Properties.Throttle).toEqual({
      RateLimit: throttleOf('default').rateLimit,
      BurstLimit: throttleOf('default').burstLimit,
    });
    const keyed = cdnRoutes.flatMap((route) => routeMethods(route).map((method) => `${route.path}/${method}`));
    expect(Object.keys(plan.Properties.ApiStages[0].Throttle).sort()).toEqual(keyed.sort());
    expect(plan.Properties.ApiStages[0].Throttle).not.toHaveProperty(`${saveRoute.path}/POST`);
  });

  it('answers gateway throttling like the application rate limiter', () => {
    const [, throttled] = onlyResource(built.template, 'AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'THROTTLED',
    });
    expect(throttled.Properties.StatusCode).toBe('429');
    expect(throttled.Properties.ResponseParameters).toEqual({
      'gatewayresponse.header.Retry-After': "'1'",
      'gatewayresponse.header.Access-Control-Allow-Origin': "'https://extension.example'",
    });
    expect(JSON.parse(throttled.Properties.ResponseTemplates['application/json'])).toEqual({
      detail: { code: 'rate_limited', message: 'Too many requests; slow down.', retry_after: 1 },
    });
  });

  it("answers a body over 10 MB with 413 and the save policy's RateLimit headers at full quota", () => {
    const [, tooLarge] = onlyResource(built.template, 'AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'REQUEST_TOO_LARGE',
    });
    expect(tooLarge.Properties.StatusCode).toBe('413');
    expect(tooLarge.Properties.ResponseParameters).toMatchObject({
      'gatewayresponse.header.RateLimit-Limit': "'42'",
      'gatewayresponse.header.RateLimit-Remaining': "'42'",
      'gatewayresponse.header.RateLimit-Reset': "'30'",
      'gatewayresponse.header.RateLimit-Policy': "'42;w=30'",
    });
  });

  it('puts every other gateway error in the contract shape with a top-level detail', () => {
    const responses = Object.values(built.template.findResources('AWS::ApiGateway::GatewayResponse')).map(
      (resource) => resource.Properties,
    );
    const byType = Object.fromEntries(responses.map((response) => [response.ResponseType, response]));
    expect(Object.keys(byType).sort()).toEqual([
      'ACCESS_DENIED',
      'DEFAULT_4XX',
      'DEFAULT_5XX',
      'INVALID_API_KEY',
      'MISSING_AUTHENTICATION_TOKEN',
      'REQUEST_TOO_LARGE',
      'THROTTLED',
      'UNAUTHORIZED',
    ]);
    expect(byType.MISSING_AUTHENTICATION_TOKEN.StatusCode).toBe('404');
    expect(byType.INVALID_API_KEY.StatusCode).toBe('403');
    expect(JSON.parse(byType.INVALID_API_KEY.ResponseTemplates['application/json'])).toEqual({ detail: 'Forbidden' });

    // What API Gateway substitutes for $context.error.messageString: the message as a quoted JSON string.
    const messageString = JSON.stringify('Invalid "request" body');
    for (const response of responses) {
      const body = JSON.parse(
        response.ResponseTemplates['application/json'].replace('$context.error.messageString', messageString),
      );
      expect(body).toHaveProperty('detail');
      expect(response.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(
        "'https://extension.example'",
      );
    }
    expect(JSON.parse(byType.MISSING_AUTHENTICATION_TOKEN.ResponseTemplates['application/json'])).toEqual({
      detail: 'Not Found',
    });
    expect(JSON.parse(byType.DEFAULT_5XX.ResponseTemplates['application/json'])).toEqual({
      detail: 'Internal Server Error',
    });
  });
});

describe('queues', () => {
  it('dead-letter a message after the receives workers.ts allows, and all are encrypted', () => {
    for (const { name, maxReceiveCount } of Object.values(queues)) {
      const { queueId, deadLetterQueueId } = queueIds(name);
      const resources = built.template.toJSON().Resources;
      expect(resources[queueId].Properties, name).toMatchObject({
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueueId, 'Arn'] }, maxReceiveCount },
        SqsManagedSseEnabled: true,
      });
      expect(resources[deadLetterQueueId].Properties, name).toMatchObject({ SqsManagedSseEnabled: true });
    }
    // Each work queue with its dead-letter queue, each scheduled task's queue of failed runs, the stream consumers' one.
    built.template.resourceCountIs('AWS::SQS::Queue', 2 * Object.keys(queues).length + scheduledTasks.length + 1);
  });

  it('keep their dead-letter queues when the stack is deleted, and delete the work queues', () => {
    const resources = built.template.toJSON().Resources;
    for (const name of Object.keys(queues)) {
      const { queueId, deadLetterQueueId } = queueIds(name);
      expect(resources[deadLetterQueueId]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(resources[queueId].DeletionPolicy).toBe('Delete');
    }
  });

  it('refuse requests without TLS', () => {
    const policies = built.template.findResources('AWS::SQS::QueuePolicy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
    });
    expect(Object.keys(policies)).toHaveLength(2 * Object.keys(queues).length + scheduledTasks.length + 1);
  });

  it('raise an alarm as soon as a message reaches a dead-letter queue', () => {
    for (const name of Object.keys(queues)) {
      built.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueIds(name).deadLetterQueueId, 'QueueName'] } }],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
      });
    }
  });
});

describe('workers', () => {
  it('drain their queue in batches, reporting failed records, at the concurrency the settings allow', () => {
    for (const worker of workers) {
      const [functionId] = backgroundFunction(worker.id);
      built.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionId },
        EventSourceArn: { 'Fn::GetAtt': [queueIds(worker.queue).queueId, 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: testContext.workers.batchSize,
        ScalingConfig: { MaximumConcurrency: testContext.workers.maxConcurrency },
      });
    }
  });

  it('finish a batch long before its message becomes visible again', () => {
    for (const worker of workers) {
      const [, fn] = backgroundFunction(worker.id);
      const queue = built.template.toJSON().Resources[queueIds(worker.queue).queueId];
      expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Properties.Timeout);
      expect(fn.Properties.Timeout).toBe(workerTimeout.toSeconds());
    }
  });

  it('may send only to the queues their access lists name', () => {
    const sendsTo = (id: string) =>
      grantsOf(backgroundFunction(id))
        .filter((grant) => grant.actions.includes('sqs:SendMessage'))
        .map((grant) => grant.resource);
    const { queueId: enrichmentQueueId } = queueIds('enrichment');
    const { queueId: faviconQueueId } = queueIds('favicon');
    expect(sendsTo(pageWorker.id)).toEqual([expect.stringContaining(`"${faviconQueueId}"`)]);
    expect(sendsTo(faviconWorker.id)).toEqual([]);
    // Not even by another action: the favicon worker only consumes its own queue.
    expect(
      grantsOf(backgroundFunction(faviconWorker.id))
        .map((grant) => grant.resource)
        .join(),
    ).not.toContain(enrichmentQueueId);
  });

  it('are told the table, the queues they send to, the public address and the icon refresh age', () => {
    expect(environmentOf(backgroundFunction(pageWorker.id))).toMatchObject({
      TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) },
      [queues.favicon.urlEnv]: { Ref: queueIds('favicon').queueId },
      ICON_REFRESH_DAYS: String(testContext.iconRefreshDays),
    });
    const faviconEnvironment = environmentOf(backgroundFunction(faviconWorker.id));
    expect(faviconEnvironment).not.toHaveProperty(queues.enrichment.urlEnv);
    // The URL of the queue each drains, as CloudFormation knows it (right in every partition, aws-cn too).
    for (const worker of workers) {
      expect(environmentOf(backgroundFunction(worker.id))[settings.sourceQueueUrl.name], worker.id).toEqual({
        Ref: queueIds(worker.queue).queueId,
      });
    }
    for (const worker of workers) {
      expect(environmentOf(backgroundFunction(worker.id)).PUBLIC_BASE_URL, worker.id).toEqual({
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^CdnDistribution/), 'DomainName'] }]],
      });
    }
  });
});

describe('scheduled tasks', () => {
  it('run on an EventBridge schedule', () => {
    for (const task of scheduledTasks) {
      built.template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `rate(${task.everyMinutes} minutes)`,
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [backgroundFunction(task.id)[0], 'Arn'] } })],
      });
    }
  });

  it('send a failed run to a retained dead-letter queue, from the schedule and from the function alike, and alarm on it', () => {
    for (const task of scheduledTasks) {
      const [functionId] = backgroundFunction(task.id);
      const [failedRunsId, failedRuns] = Object.entries(built.template.findResources('AWS::SQS::Queue')).find(([id]) =>
        id.startsWith(`Background${task.id}FailedRuns`),
      )!;
      expect(failedRuns).toMatchObject({ DeletionPolicy: 'Retain', Properties: { SqsManagedSseEnabled: true } });
      const [, rule] = onlyResource(built.template, 'AWS::Events::Rule', {
        ScheduleExpression: `rate(${task.everyMinutes} minutes)`,
      });
      expect(rule.Properties.Targets[0]).toMatchObject({
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [failedRunsId, 'Arn'] } },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: task.everyMinutes * 60 },
      });
      built.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: functionId },
        MaximumRetryAttempts: 1,
        MaximumEventAgeInSeconds: task.everyMinutes * 60,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failedRunsId, 'Arn'] } } },
      });
      const [, alarm] = onlyResource(built.template, 'AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [failedRunsId, 'QueueName'] } }],
      });
      expect(alarm.Properties).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', Threshold: 0 });
      expect(alarm.Properties.AlarmDescription).toMatch(/log group/);
    }
  });

  it('give the sweeper the table and the enrichment queue to re-publish to', () => {
    const sweeper = backgroundFunction('EnrichmentSweeper');
    const { queueId } = queueIds('enrichment');
    expect(environmentOf(sweeper)).toMatchObject({
      TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) },
      [queues.enrichment.urlEnv]: { Ref: queueId },
    });
    expect(grantsOf(sweeper)).toContainEqual({
      actions: expect.arrayContaining(['sqs:SendMessage']),
      resource: expect.stringContaining(`"${queueId}"`),
    });
  });
});

describe('CloudFront', () => {
  const cachedPatterns = [
    '/api/v2/publisher/feeds/*',
    '/articles/*',
    '/feeds/*',
    '/feeds/*/atom',
    '/feeds/*/feed.json',
    '/feeds/embed.js',
    '/icons/*',
    '/openapi.json',
    '/openapi/v2.json',
  ];
  /** The paged formats, whose query selects the page. */
  const pagedPatterns = ['/feeds/*/atom', '/feeds/*/feed.json'];
  /** The behaviours of the API's cached routes (the web assets' own is tested below). */
  const cachedBehaviors = () =>
    (distributionConfig().CacheBehaviors as Record<string, any>[]).filter(
      (behavior) => behavior.PathPattern !== '/assets/*',
    );

  it('serves over HTTPS only, HTTP/2 and 3, compressed', () => {
    const config = distributionConfig();
    expect(config.HttpVersion).toBe('http2and3');
    for (const behavior of [config.DefaultCacheBehavior, ...cachedBehaviors()]) {
      expect(behavior).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https', Compress: true });
    }
  });

  it('caches the feeds and icons, GET and HEAD only (OPTIONS passed for the preflight), by the origin Cache-Control with nothing per reader in the key', () => {
    expect(
      cachedBehaviors()
        .map((behavior) => behavior.PathPattern)
        .sort(),
    ).toEqual(cachedPatterns);
    for (const behavior of cachedBehaviors()) {
      expect(behavior).toMatchObject({ AllowedMethods: ['GET', 'HEAD', 'OPTIONS'], CachedMethods: ['GET', 'HEAD'] });
      const policy = built.template.toJSON().Resources[behavior.CachePolicyId.Ref];
      expect(policy.Properties.CachePolicyConfig).toMatchObject({
        MinTTL: 0,
        DefaultTTL: 0,
        MaxTTL: 365 * 24 * 3600,
        ParametersInCacheKeyAndForwardedToOrigin: {
          CookiesConfig: { CookieBehavior: 'none' },
          HeadersConfig: { HeaderBehavior: 'none' },
          QueryStringsConfig: pagedPatterns.includes(behavior.PathPattern)
            ? { QueryStringBehavior: 'whitelist', QueryStrings: ['limit', 'cursor'] }
            : { QueryStringBehavior: 'none' },
          EnableAcceptEncodingGzip: true,
          EnableAcceptEncodingBrotli: true,
        },
      });
    }
  });

  it("matches the paged formats' exact paths before the prefix that covers them, keyed on their page", () => {
    const patterns = cachedBehaviors().map((behavior) => behavior.PathPattern as string);
    for (const paged of pagedPatterns) expect(patterns.indexOf(paged)).toBeLessThan(patterns.indexOf('/feeds/*'));
  });

  it('serves GET /openapi.json from its own function, which touches no data, cached under its own exact path', () => {
    const route = routes.find((candidate) => candidate.id === 'GetOpenApiDocument')!;
    expect(route).toMatchObject({ method: 'GET', path: '/openapi.json', cdn: true });
    const method = apiMethods(built.api).find(
      (candidate) => candidate.path === '/openapi.json' && candidate.httpMethod === 'GET',
    );
    expect(method?.properties).toMatchObject({ ApiKeyRequired: true, Integration: { Type: 'AWS_PROXY' } });
    const fn = routeFunction(route);
    expect(environmentOf(fn)).not.toHaveProperty('TABLE_NAME');
    expect(
      grantsOf(fn)
        .flatMap((grant) => grant.actions)
        .filter((action) => /^(dynamodb|sqs):/.test(action)),
    ).toEqual([]);

    const behavior = cachedBehaviors().find((candidate) => candidate.PathPattern === '/openapi.json');
    expect(behavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
      ViewerProtocolPolicy: 'redirect-to-https',
      Compress: true,
    });
    expect(behavior!.CachePolicyId).toEqual(
      cachedBehaviors().find((candidate) => candidate.PathPattern === '/icons/*')!.CachePolicyId,
    );
  });

  it("caches the feed's public page and the embed script like the feed routes, and gives the script no data access", () => {
    const feedBehavior = cachedBehaviors().find((candidate) => candidate.PathPattern === '/api/v2/publisher/feeds/*')!;
    for (const pattern of ['/feeds/*', '/feeds/embed.js']) {
      const behavior = cachedBehaviors().find((candidate) => candidate.PathPattern === pattern);
      expect(behavior, pattern).toMatchObject({
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
        CachedMethods: ['GET', 'HEAD'],
        Compress: true,
      });
      expect(behavior!.CachePolicyId).toEqual(feedBehavior.CachePolicyId);
      expect(behavior!.OriginRequestPolicyId).toEqual(feedBehavior.OriginRequestPolicyId);
    }
    const page = routes.find((candidate) => candidate.id === 'GetFeedPage')!;
    expect(environmentOf(routeFunction(page))).toMatchObject({
      TRUST_CDN_HEADERS: 'true',
      TABLE_NAME: expect.anything(),
    });
    const script = routes.find((candidate) => candidate.id === 'GetFeedEmbedScript')!;
    expect(
      grantsOf(routeFunction(script))
        .flatMap((grant) => grant.actions)
        .filter((action) => /^(dynamodb|sqs):/.test(action)),
    ).toEqual([]);
  });

  it('forwards to the cached routes only the reader address and the host readers used', () => {
    for (const behavior of cachedBehaviors()) {
      const policy = built.template.toJSON().Resources[behavior.OriginRequestPolicyId.Ref];
      expect(policy.Properties.OriginRequestPolicyConfig).toMatchObject({
        HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['CloudFront-Viewer-Address', 'X-Forwarded-Host'] },
        CookiesConfig: { CookieBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'none' },
      });
    }
  });

  it('copies the viewer host into X-Forwarded-Host before the cached routes', () => {
    const [functionId, cloudFrontFunction] = onlyResource(built.template, 'AWS::CloudFront::Function');
    expect(cloudFrontFunction.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    for (const behavior of cachedBehaviors()) {
      expect(behavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
      ]);
    }
    expect(distributionConfig().DefaultCacheBehavior.FunctionAssociations).toBeUndefined();

    const handler = new Function(`${cloudFrontFunction.Properties.FunctionCode}; return handler;`)();
    const request = {
      method: 'GET',
      uri: '/icons/a.png',
      headers: { host: { value: 'd111.cloudfront.net' }, 'x-forwarded-host': { value: 'evil.example' } },
    };
    expect(handler({ request }).headers).toEqual({
      host: { value: 'd111.cloudfront.net' },
      'x-forwarded-host': { value: 'd111.cloudfront.net' },
    });
  });

  it('passes everything else through uncached, with every method and every viewer header but Host', () => {
    expect(distributionConfig().DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
      OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    });
  });

  it('sends the API key to the origin of the cached routes only, at the API stage', () => {
    const config = distributionConfig();
    const [secretId] = onlyResource(built.template, 'AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('origin key'),
    });
    const originOf = (behavior: Record<string, any>) =>
      (config.Origins as Record<string, any>[]).find((origin) => origin.Id === behavior.TargetOriginId)!;
    for (const behavior of cachedBehaviors()) {
      expect(originOf(behavior).OriginCustomHeaders).toEqual([
        { HeaderName: 'x-api-key', HeaderValue: secretReference(secretId) },
      ]);
    }
    const defaultOrigin = originOf(config.DefaultCacheBehavior);
    expect(defaultOrigin.OriginCustomHeaders).toBeUndefined();
    const apiOrigins = (config.Origins as Record<string, any>[]).filter((origin) => !origin.S3OriginConfig);
    expect(apiOrigins).toHaveLength(2);
    for (const origin of apiOrigins) {
      expect(origin.CustomOriginConfig).toMatchObject({
        OriginProtocolPolicy: 'https-only',
        OriginSSLProtocols: ['TLSv1.2'],
      });
      expect(origin.OriginPath).toBe('/test');
      expect(origin.DomainName).toEqual({
        'Fn::Join': [
          '',
          [
            { Ref: expect.stringMatching(/^ApiRestApi/) },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
          ],
        ],
      });
    }
  });

  it('depends on the API itself, not on its stage, methods or functions, so the functions can be given its domain', () => {
    const [, distribution] = onlyResource(built.template, 'AWS::CloudFront::Distribution');
    const referenced = JSON.stringify(distribution).match(/"(Ref|Fn::GetAtt)":\[?"(\w+)"/g) ?? [];
    const types = new Set(
      referenced.map((found) => built.template.toJSON().Resources[found.replace(/.*"(\w+)"$/, '$1')]?.Type),
    );
    for (const type of [
      'AWS::ApiGateway::Stage',
      'AWS::ApiGateway::Deployment',
      'AWS::ApiGateway::Method',
      'AWS::Lambda::Function',
    ])
      expect(types).not.toContain(type);
    expect(types).toContain('AWS::ApiGateway::RestApi');
  });

  it('adds the security headers to every answer, cached or not', () => {
    const [policyId] = onlyResource(built.template, 'AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: {
          StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ReferrerPolicy: { ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true },
        },
      }),
    });
    const config = distributionConfig();
    for (const behavior of [config.DefaultCacheBehavior, ...cachedBehaviors()])
      expect(behavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
  });

  it('logs to a TLS-only bucket whose own access is logged', () => {
    const bucketId = distributionConfig().Logging.Bucket['Fn::GetAtt'][0] as string;
    const bucket = built.template.toJSON().Resources[bucketId];
    expect(bucket.Properties.LoggingConfiguration.DestinationBucketName).toEqual({ Ref: expect.any(String) });
    built.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('web assets', () => {
  const { assets, version } = webAssets();
  const assetsBehavior = () =>
    (distributionConfig().CacheBehaviors as Record<string, any>[]).find(
      (behavior) => behavior.PathPattern === '/assets/*',
    )!;

  it('sit in an encrypted, TLS-only bucket closed to the public, readable by this distribution alone (origin access control)', () => {
    const behavior = assetsBehavior();
    const origin = (distributionConfig().Origins as Record<string, any>[]).find(
      (candidate) => candidate.Id === behavior.TargetOriginId,
    )!;
    const bucketId = origin.DomainName['Fn::GetAtt'][0] as string;
    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(origin.OriginAccessControlId).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/OriginAccessControl/), 'Id'],
    });
    built.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always' },
    });
    const bucket = built.template.toJSON().Resources[bucketId];
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: { DestinationBucketName: { Ref: expect.stringMatching(/^CdnServerAccessLogs/) } },
    });
    const [, policy] = onlyResource(built.template, 'AWS::S3::BucketPolicy', { Bucket: { Ref: bucketId } });
    expect(policy.Properties.PolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      expect.objectContaining({
        Effect: 'Allow',
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': ['', expect.arrayContaining([{ Ref: expect.stringMatching(/^CdnDistribution/) }])],
            },
          },
        },
      }),
    ]);
  });

  it('are served at /assets/* by GET and HEAD, cached by their own Cache-Control, while pages and the API stay on API Gateway', () => {
    expect(assetsBehavior()).toMatchObject({
      AllowedMethods: ['GET', 'HEAD'],
      CachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
      ViewerProtocolPolicy: 'redirect-to-https',
      Compress: true,
    });
    const defaultOrigin = (distributionConfig().Origins as Record<string, any>[]).find(
      (origin) => origin.Id === distributionConfig().DefaultCacheBehavior.TargetOriginId,
    )!;
    expect(JSON.stringify(defaultOrigin.DomainName)).toContain('RestApi');
  });

  it('are deployed from the build the local stack serves, under their version, each with its type and a year of immutable caching', () => {
    const deployments = Object.values(built.template.findResources('Custom::CDKBucketDeployment')).map(
      (resource) => resource.Properties as Record<string, any>,
    );
    const deployed = deployments.flatMap((deployment) => {
      expect(deployment).toMatchObject({
        DestinationBucketKeyPrefix: `assets/${version}/`,
        Prune: false,
        Exclude: ['*'],
        SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
      });
      return (deployment.Include as string[]).map((file) => [file, deployment.SystemMetadata['content-type']]);
    });
    expect(Object.fromEntries(deployed)).toEqual(
      Object.fromEntries([...buildWebAssets()].map(([file, asset]) => [file, asset.contentType])),
    );
    expect([...assets.keys()]).toEqual(expect.arrayContaining(['app.css', 'passkey.js', 'manifest.webmanifest']));
  });

  it('get a new version when any file changes, and the pages name it when bundled (unversioned run from source)', () => {
    const changed = new Map(assets);
    changed.set('app.css', { ...assets.get('app.css')!, body: Buffer.from('body{}') });
    expect(webAssetsVersion(changed)).not.toBe(version);
    expect(webAssetsVersion(new Map(assets))).toBe(version);
    expect(renderPage({ title: 'T', body: '' })).toContain('href="/assets/app.css"');
  });
});

/** The rule ids acknowledged below `scope` (cdk-nag writes them as `Annotation::<rule>`). */
function acknowledgedRules(scope: Parameters<typeof acknowledgments>[0]): string[] {
  return acknowledgments(scope).map((entry) => entry.id.replace(/^Annotation::/, ''));
}

describe('with a WAF web ACL', () => {
  it('is off by default, with a reason for the finding', () => {
    built.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(distributionConfig().WebACLId).toBeUndefined();
    expect(acknowledgedRules(built.stack)).toContain('AwsSolutions-CFR2');
  });

  it('puts AWS common rules and a rate limit per client address on CloudFront, in us-east-1 only', () => {
    const { stack, template } = buildGleanerStack(testSettings({ waf: true, wafRateLimit: 500 }));
    const [aclId, acl] = onlyResource(template, 'AWS::WAFv2::WebACL', { Scope: 'CLOUDFRONT' });
    expect(acl.Properties.DefaultAction).toEqual({ Allow: {} });
    const [common, rate] = acl.Properties.Rules as [Record<string, any>, Record<string, any>];
    expect(common.Statement.ManagedRuleGroupStatement).toMatchObject({
      VendorName: 'AWS',
      Name: 'AWSManagedRulesCommonRuleSet',
    });
    // Saves carry bodies over the set's 8 KB: that rule only counts.
    expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toContainEqual({
      Name: 'SizeRestrictions_BODY',
      ActionToUse: { Count: {} },
    });
    expect(rate).toMatchObject({
      Action: { Block: {} },
      Statement: { RateBasedStatement: { Limit: 500, AggregateKeyType: 'IP' } },
    });
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const rules = Object.values(template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown }[] }>);
    expect(rules.flatMap((rule) => rule.Assertions.map((assertion) => assertion.Assert))).toContainEqual({
      'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'],
    });
    expect(nagViolations(stack)).toEqual([]);
    expect(acknowledgedRules(stack)).not.toContain('AwsSolutions-CFR2');
  });

  it('attaches a web ACL made elsewhere by its ARN, and refuses both at once', () => {
    const wafWebAclArn =
      'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared/0f8f8c8e-1111-2222-3333-444455556666';
    const { template } = buildGleanerStack(testSettings({ wafWebAclArn }));
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(onlyResource(template, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig.WebACLId).toBe(
      wafWebAclArn,
    );
    expect(() => testSettings({ waf: true, wafWebAclArn })).toThrow(/choose one/);
  });
});

describe('with a custom domain', () => {
  const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f8f8c8e-1111-2222-3333-444455556666';
  const domain = { domainName: 'feeds.example.com', certificateArn };

  it('puts the domain on CloudFront with its certificate and TLS 1.2 (2021) at least, and passes the checks without the default-certificate acknowledgment', () => {
    const custom = buildGleanerStack(testSettings(domain));
    const [, distribution] = onlyResource(custom.template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      Aliases: ['feeds.example.com'],
      ViewerCertificate: {
        AcmCertificateArn: certificateArn,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      },
    });
    expect(nagViolations(custom.stack)).toEqual([]);
    expect(acknowledgedRules(custom.stack)).not.toContain('AwsSolutions-CFR4');
    expect(custom.template.toJSON().Outputs.BaseUrl.Value).toBe('https://feeds.example.com');
    for (const route of cdnRoutes)
      expect(environmentOf(routeFunction(route, custom.template)).PUBLIC_BASE_URL, route.id).toBe(
        'https://feeds.example.com',
      );
    custom.template.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  it('adds IPv4 and IPv6 alias records when given the Route 53 zone', () => {
    const { template } = buildGleanerStack(testSettings({ ...domain, hostedZoneId: 'Z0123456789ABCDEFGHIJ' }));
    for (const Type of ['A', 'AAAA']) {
      template.hasResourceProperties('AWS::Route53::RecordSet', {
        Type,
        Name: 'feeds.example.com.',
        HostedZoneId: 'Z0123456789ABCDEFGHIJ',
        AliasTarget: { DNSName: { 'Fn::GetAtt': [Match.stringLikeRegexp('^CdnDistribution'), 'DomainName'] } },
      });
    }
  });

  it('refuses a domain without a certificate in us-east-1, and a zone without a domain', () => {
    expect(() => testSettings({ domainName: 'feeds.example.com' })).toThrow(
      /domainName and certificateArn go together/,
    );
    expect(() => testSettings({ ...domain, certificateArn: certificateArn.replace('us-east-1', 'eu-west-1') })).toThrow(
      /certificateArn/,
    );
    expect(() => testSettings({ hostedZoneId: 'Z0123456789ABCDEFGHIJ' })).toThrow(/hostedZoneId needs domainName/);
  });

  it('hands an address in front of CloudFront to every route function and the workers, and outputs it', () => {
    const publicBaseUrl = 'https://feeds.example';
    const custom = buildGleanerStack(testSettings({ publicBaseUrl }));
    for (const route of routeFunctions(routes))
      expect(environmentOf(routeFunction(route, custom.template)).PUBLIC_BASE_URL, route.id).toBe(publicBaseUrl);
    for (const worker of workers)
      expect(environmentOf(backgroundFunction(worker.id, custom.template)).PUBLIC_BASE_URL, worker.id).toBe(
        publicBaseUrl,
      );
    expect(custom.template.toJSON().Outputs.BaseUrl.Value).toBe(publicBaseUrl);
  });
});

describe('stack', () => {
  it('outputs the base URL at CloudFront, the API base URL, the table name and the queue URLs', () => {
    const outputs = built.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['BaseUrl', 'ApiBaseUrl', 'TableName', 'EnrichmentQueueUrl', 'FaviconQueueUrl']),
    );
    expect(outputs.BaseUrl!.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^CdnDistribution/), 'DomainName'] }]],
    });
  });

  it('keeps every template, the nested ones too, under the resource budget, with every option on', () => {
    const { stack } = buildGleanerStack(
      testSettings({
        domainName: 'feeds.example.com',
        certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0f8f8c8e-1111-2222-3333-444455556666',
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        alarmEmail: 'oncall@example.com',
        waf: true,
        cdnOriginKeyVersion: 2,
      }),
    );
    const templates = Object.fromEntries(
      stack.node
        .findAll()
        .filter((construct): construct is Stack => Stack.isStack(construct))
        .map((each) => [each.node.path, Template.fromStack(each).toJSON()]),
    );
    // The service's stack, its four route groups, the API's deployment and the monitoring stack.
    expect(Object.keys(templates)).toHaveLength(7);
    expect(overResourceBudget(templates, stack.node.path)).toEqual([]);
    const resources = (count: number) => ({
      Resources: Object.fromEntries(Array.from({ length: count }, (_, i) => [i, {}])),
    });
    expect(
      overResourceBudget(
        {
          Root: resources(ROOT_RESOURCE_BUDGET),
          RootBelow: resources(ROOT_RESOURCE_BUDGET - 1),
          Nested: resources(RESOURCE_BUDGET),
          NestedBelow: resources(RESOURCE_BUDGET - 1),
        },
        'Root',
      ),
    ).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Root has ${ROOT_RESOURCE_BUDGET} resources, not under the budget of ${ROOT_RESOURCE_BUDGET} .*nested stack`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^Nested has ${RESOURCE_BUDGET} resources, not under the budget of ${RESOURCE_BUDGET} `),
      ),
    ]);
  });

  it('passes the AWS Solutions checks with nothing left unacknowledged, in the monitoring stack too', () => {
    expect(nagViolations(built.stack.monitoring)).toEqual([]);
    expect(
      nagViolations(built.stack).map(
        (violation) => `${violation.ruleName} ${violation.violatingResources[0]?.constructPath}`,
      ),
    ).toEqual([]);
  });

  it('gives a reason for every acknowledged finding', () => {
    const acknowledged = acknowledgments(built.stack);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { path, id, reason } of acknowledged) {
      expect(reason, `${id} on ${path}`).toEqual(expect.stringMatching(/\w{3,}.{30,}/));
    }
  });
});

/** The CloudFormation dynamic reference to a secret's whole string, as CDK renders `secret.secretValue`. */
function secretReference(secretId: string) {
  return { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] };
}

describe('settings', () => {
  it('sets only variables of the contract on its functions', () => {
    const known = new Set([
      ...Object.values(settings).map((definition) => definition.name),
      ...Object.values(rateLimitSettings).map((definition) => definition.name),
      ...Object.values(queues).map((queue) => queue.urlEnv),
      // Read by Powertools and Node themselves.
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_METRICS_NAMESPACE',
      'NODE_OPTIONS',
    ]);
    const functions = appFunctions(built.template).map(([, fn]) => fn);
    const names = new Set(functions.flatMap((fn) => Object.keys(fn.Properties.Environment?.Variables ?? {})));
    expect(names.size).toBeGreaterThan(5);
    expect([...names].filter((name) => !known.has(name))).toEqual([]);
  });
});
