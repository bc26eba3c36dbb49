import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/platform/routes';
import { tableDefinition } from '../../functions/platform/table-definition';
import { acknowledgments, apiMethods, buildGleanerStack, nagViolations, onlyResource, testContext } from './harness';

let built: ReturnType<typeof buildGleanerStack>;
beforeAll(() => {
  built = buildGleanerStack();
});

const saveRoute = routes.find((route) => route.id === 'SaveBookmark')!;

function routeFunction(route = saveRoute) {
  return onlyResource(built.template, 'AWS::Lambda::Function', { Description: `${route.method} ${route.path}` });
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
  it('gives every route its own arm64 Node.js 24 function with its own log group', () => {
    built.template.resourceCountIs('AWS::Lambda::Function', routes.length);
    for (const route of routes) {
      const [, fn] = routeFunction(route);
      expect(fn.Properties).toMatchObject({
        Architectures: ['arm64'],
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
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'gleaner',
      POWERTOOLS_METRICS_NAMESPACE: 'Gleaner',
      LOG_LEVEL: 'DEBUG',
      TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) },
      ENRICHMENT_QUEUE_URL: { Ref: expect.stringMatching(/^EnrichmentQueue/) },
      SAVE_RATE_LIMIT: testContext.rateLimits.save,
      CORS_ALLOWED_ORIGINS: 'https://extension.example',
    });
  });

  it('lets the save function write the table and send to the queue, and nothing broader', () => {
    const [, fn] = routeFunction();
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    const [, policy] = onlyResource(built.template, 'AWS::IAM::Policy', { Roles: [{ Ref: roleId }] });
    const statements = policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
    const grants = statements.map((statement) => ({ actions: [statement.Action].flat(), resource: JSON.stringify(statement.Resource) }));

    expect(grants).toContainEqual({ actions: expect.arrayContaining(['sqs:SendMessage']), resource: expect.stringMatching(/EnrichmentQueue\w+","Arn"/) });
    expect(grants).toContainEqual({ actions: expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']), resource: expect.stringMatching(/DataTable/) });
    const actions = grants.flatMap((grant) => grant.actions);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('sqs:ReceiveMessage');
  });
});

describe('REST API', () => {
  it('has a Lambda proxy method for every route', () => {
    const methods = apiMethods(built.template);
    for (const route of routes) {
      const method = methods.find((candidate) => candidate.path === route.path && candidate.httpMethod === route.method);
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      expect(method!.properties.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(JSON.stringify(method!.properties.Integration.Uri)).toContain(routeFunction(route)[0]);
    }
  });

  it('answers CORS preflight on the save resource', () => {
    const preflight = apiMethods(built.template).find((method) => method.path === saveRoute.path && method.httpMethod === 'OPTIONS');
    expect(preflight?.properties.Integration.IntegrationResponses[0].ResponseParameters).toMatchObject({
      'method.response.header.Access-Control-Allow-Headers': "'Authorization,Content-Type'",
      'method.response.header.Access-Control-Allow-Methods': "'OPTIONS,POST'",
      'method.response.header.Access-Control-Allow-Origin': "'https://extension.example'",
    });
  });

  it('throttles each route by its quota and the rest of the stage by the default one', () => {
    const { save, default: stageDefault } = testContext.throttle;
    const [, stage] = onlyResource(built.template, 'AWS::ApiGateway::Stage', {
      StageName: 'test',
      TracingEnabled: true,
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: false,
          ThrottlingRateLimit: stageDefault.rateLimit,
          ThrottlingBurstLimit: stageDefault.burstLimit,
        }),
        Match.objectLike({
          HttpMethod: 'POST',
          ResourcePath: '/~1api~1v1~1bookmarks~1save',
          ThrottlingRateLimit: save.rateLimit,
          ThrottlingBurstLimit: save.burstLimit,
        }),
      ]),
    });
    expect(JSON.stringify(stage.Properties.AccessLogSetting.DestinationArn)).toMatch(/ApiAccessLogs/);
  });

  it('shows the same throttles in a usage plan', () => {
    const { save, default: stageDefault } = testContext.throttle;
    built.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      UsagePlanName: 'GleanerTest-throttles',
      Description: Match.anyValue(),
      Throttle: { RateLimit: stageDefault.rateLimit, BurstLimit: stageDefault.burstLimit },
      ApiStages: [
        Match.objectLike({
          Throttle: Match.objectLike({ '/api/v1/bookmarks/save/POST': { RateLimit: save.rateLimit, BurstLimit: save.burstLimit } }),
        }),
      ],
    });
  });

  it('answers gateway throttling like the application rate limiter', () => {
    const [, throttled] = onlyResource(built.template, 'AWS::ApiGateway::GatewayResponse', { ResponseType: 'THROTTLED' });
    expect(throttled.Properties.StatusCode).toBe('429');
    expect(throttled.Properties.ResponseParameters).toEqual({
      'gatewayresponse.header.Retry-After': "'1'",
      'gatewayresponse.header.Access-Control-Allow-Origin': "'https://extension.example'",
    });
    expect(JSON.parse(throttled.Properties.ResponseTemplates['application/json'])).toEqual({
      detail: { code: 'rate_limited', message: 'Too many requests; slow down.', retry_after: 1 },
    });
  });

  it('puts every other gateway error in the contract shape with a top-level detail', () => {
    const responses = Object.values(built.template.findResources('AWS::ApiGateway::GatewayResponse')).map((resource) => resource.Properties);
    const byType = Object.fromEntries(responses.map((response) => [response.ResponseType, response]));
    expect(Object.keys(byType).sort()).toEqual(['ACCESS_DENIED', 'DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'THROTTLED', 'UNAUTHORIZED']);
    expect(byType.MISSING_AUTHENTICATION_TOKEN.StatusCode).toBe('404');

    // What API Gateway substitutes for $context.error.messageString: the message as a quoted JSON string.
    const messageString = JSON.stringify('Invalid "request" body');
    for (const response of responses) {
      const body = JSON.parse(response.ResponseTemplates['application/json'].replace('$context.error.messageString', messageString));
      expect(body).toHaveProperty('detail');
      expect(response.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe("'https://extension.example'");
    }
    expect(JSON.parse(byType.MISSING_AUTHENTICATION_TOKEN.ResponseTemplates['application/json'])).toEqual({ detail: 'Not Found' });
    expect(JSON.parse(byType.DEFAULT_5XX.ResponseTemplates['application/json'])).toEqual({ detail: 'Internal Server Error' });
  });
});

describe('enrichment queue', () => {
  it('dead-letters a message after five receives, and both queues are encrypted', () => {
    const [dlqId] = onlyResource(built.template, 'AWS::SQS::Queue', { RedrivePolicy: Match.absent() });
    built.template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
    });
    built.template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.absent(), SqsManagedSseEnabled: true });
  });

  it('refuses requests without TLS on both queues', () => {
    const policies = built.template.findResources('AWS::SQS::QueuePolicy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
    });
    expect(Object.keys(policies)).toHaveLength(2);
  });

  it('raises an alarm as soon as a message reaches the dead-letter queue', () => {
    const [dlqId] = onlyResource(built.template, 'AWS::SQS::Queue', { RedrivePolicy: Match.absent() });
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });
});

describe('stack', () => {
  it('outputs the API base URL, the table name and the queue URL', () => {
    const outputs = built.template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiBaseUrl', 'TableName', 'EnrichmentQueueUrl']));
  });

  it('passes the AWS Solutions checks with nothing left unacknowledged', () => {
    expect(nagViolations(built.stack).map((violation) => `${violation.ruleName} ${violation.violatingResources[0]?.constructPath}`)).toEqual([]);
  });

  it('gives a reason for every acknowledged finding', () => {
    const acknowledged = acknowledgments(built.stack);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { path, id, reason } of acknowledged) {
      expect(reason, `${id} on ${path}`).toEqual(expect.stringMatching(/\w{3,}.{30,}/));
    }
  });
});
