import { Duration, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_KEY_PREFIX } from '../../functions/adapters/dynamo/keys';
import { type RouteDefinition, routes } from '../../functions/platform/routes';
import { queues } from '../../functions/platform/workers';
import { AppFunction } from '../../lib/app-function';
import { cachedPathPatterns } from '../../lib/cdn';
import { parseSettings, settingsForStage } from '../../lib/stage-settings';
import { WorkQueue, workerTimeout } from '../../lib/work-queue';
import {
  apiMethods,
  buildApi,
  cdkJson,
  onlyResource,
  stageResourcePath,
  testApp,
  testContext,
  testSettings,
  throttleOf,
} from './harness';

const saveRoute = routes.find((route) => route.id === 'SaveBookmark')!;

/** A public feed route as a later change will add it, on a module of its own (routes of one module share a function). */
const feedRoute: RouteDefinition = {
  id: 'PublishedFeed',
  method: 'GET',
  path: '/api/v2/publisher/feeds/{feed_id}/public',
  entry: 'functions/published-feed-json/handler.ts',
  group: 'save-and-feeds',
  throttle: 'feed',
  cdn: true,
  access: ['table:read', 'table:rate-limit'],
};
const feedRouteDescription = `${feedRoute.method} ${feedRoute.path}`;

describe('adding a route to the route table', () => {
  const template = buildApi([saveRoute, feedRoute]);
  const [, feedFunction] = onlyResource(template, 'AWS::Lambda::Function', { Description: feedRouteDescription });

  it('adds its method under nested resources with a path parameter, and the 405 for the others', () => {
    expect(
      apiMethods(template)
        .map(({ httpMethod, path }) => `${httpMethod} ${path}`)
        .sort(),
    ).toEqual([
      // The API's root answers 405 without a route of its own (CDK wants a method beside the RestApi).
      'ANY /',
      `ANY ${saveRoute.path}`,
      `ANY ${feedRoute.path}`,
      feedRouteDescription,
      `OPTIONS ${saveRoute.path}`,
      `POST ${saveRoute.path}`,
    ]);
  });

  it('hands the function its quota as <QUOTA>_RATE_LIMIT, and no CORS settings unless the route asks', () => {
    const variables = feedFunction.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables.FEED_RATE_LIMIT).toBe(testContext.rateLimits.feed);
    expect(variables).toHaveProperty('TABLE_NAME');
    expect(variables).not.toHaveProperty('CORS_ALLOWED_ORIGINS');
    expect(variables).not.toHaveProperty('ENRICHMENT_QUEUE_URL');
  });

  it('lets table:rate-limit update rate-limit windows only', () => {
    const roleId = feedFunction.Properties.Role['Fn::GetAtt'][0] as string;
    const [, policy] = onlyResource(template, 'AWS::IAM::Policy', { Roles: [{ Ref: roleId }] });
    const statements = policy.Properties.PolicyDocument.Statement as Record<string, unknown>[];
    expect(statements.filter((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'))).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^DataTable/), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_LIMIT_KEY_PREFIX}*`] } },
      },
    ]);
  });

  it('throttles it by its own quota at the stage and in the usage plan', () => {
    const feed = throttleOf('feed');
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: 'GET',
          ResourcePath: stageResourcePath(feedRoute.path),
          ThrottlingRateLimit: feed.rateLimit,
          ThrottlingBurstLimit: feed.burstLimit,
        }),
      ]),
    });
    const [, plan] = onlyResource(template, 'AWS::ApiGateway::UsagePlan');
    expect(plan.Properties.ApiStages[0].Throttle[`${feedRoute.path}/${feedRoute.method}`]).toEqual({
      RateLimit: feed.rateLimit,
      BurstLimit: feed.burstLimit,
    });
  });

  it('fails early when cdk.json has no quota for the route', () => {
    const { icon: _icon, ...throttle } = testContext.throttle;
    expect(() => buildApi([{ ...feedRoute, throttle: 'icon' }], testSettings({ throttle }))).toThrow(/quota "icon"/);
  });
});

describe('a retiring route', () => {
  const link = 'https://docs.example/retiring';

  it('hands its function the retirement, so every answer carries Deprecation, Sunset and Link', () => {
    const retirement = { deprecatedAt: '2027-01-15T00:00:00Z', sunsetAt: '2027-07-15T00:00:00Z', link };
    const template = buildApi([saveRoute, { ...feedRoute, retirement }]);
    const [, fn] = onlyResource(template, 'AWS::Lambda::Function', { Description: feedRouteDescription });
    expect(JSON.parse(fn.Properties.Environment.Variables.ROUTE_RETIREMENT)).toEqual(retirement);
    const [, save] = onlyResource(template, 'AWS::Lambda::Function', { Description: `POST ${saveRoute.path}` });
    expect(save.Properties.Environment.Variables).not.toHaveProperty('ROUTE_RETIREMENT');
  });

  it('fails the synth when the sunset is less than six months after the deprecation', () => {
    const retirement = { deprecatedAt: '2027-01-15T00:00:00Z', sunsetAt: '2027-05-15T00:00:00Z', link };
    expect(() => buildApi([saveRoute, { ...feedRoute, retirement }])).toThrow(
      /^Route PublishedFeed: sunsetAt .* is less than 6 months after deprecatedAt/,
    );
  });
});

describe('API with several allowed origins', () => {
  it('echoes the caller origin on gateway errors', () => {
    const template = buildApi(
      [saveRoute],
      testSettings({ corsAllowedOrigins: ['https://a.example', 'https://b.example'] }),
    );
    const [, throttled] = onlyResource(template, 'AWS::ApiGateway::GatewayResponse', { ResponseType: 'THROTTLED' });
    expect(throttled.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(
      'method.request.header.Origin',
    );
  });
});

describe('queue workers', () => {
  it('must finish well within the visibility timeout', () => {
    const stack = new Stack(testApp(), 'SlowWorkerTest');
    const enrichment = new WorkQueue(stack, 'Enrichment', queues.enrichment);
    const slowWorker = new AppFunction(stack, 'Worker', {
      entry: saveRoute.entry,
      logRetention: RetentionDays.ONE_WEEK,
      logLevel: 'INFO',
      timeout: Duration.minutes(1),
    });
    expect(() => enrichment.addWorker(slowWorker.function, { batchSize: 2, maxConcurrency: 3 })).toThrow(
      `must time out within ${workerTimeout.toHumanString()}`,
    );
  });
});

describe('cached path patterns', () => {
  it('cover each cached resource prefix once, and a route without parameters by its exact path', () => {
    expect(cachedPathPatterns(routes)).toEqual([
      '/api/v2/publisher/feeds/*',
      '/feeds/embed.js',
      '/feeds/*',
      '/icons/*',
      '/articles/*',
      '/openapi.json',
      '/openapi/v2.json',
    ]);
  });

  it('refuse a route that is not cached under a cached prefix', () => {
    const uncachedFeedRoute: RouteDefinition = {
      ...feedRoute,
      id: 'FeedAdmin',
      method: 'POST',
      path: '/api/v2/publisher/feeds/{feed_id}',
      cdn: false,
    };
    expect(() => cachedPathPatterns([feedRoute, uncachedFeedRoute])).toThrow(
      /FeedAdmin .* cached path pattern \/api\/v2\/publisher\/feeds\/\*/,
    );
  });
});

describe('settings', () => {
  it('accepts the settings in cdk.json, with the mail sender a deployment adds', () => {
    const settings = { ...(cdkJson.context.gleaner as object), mailFrom: 'Gleaner <no-reply@mail.example.org>' };
    expect(parseSettings({ ...settings, stage: 'prod' }).stage).toBe('prod');
  });

  it('refuses to synth without mailFrom, saying what to set and why', () => {
    const { mailFrom: _, ...withoutSender } = testContext;
    expect(() => parseSettings({ ...withoutSender, stage: 'prod' })).toThrow(
      /set "mailFrom" to an address of an SES identity verified in this account and region/,
    );
    expect(() => parseSettings({ ...(cdkJson.context.gleaner as object), stage: 'prod' })).toThrow(/mailFrom/);
    expect(() => parseSettings({ ...testContext, stage: 'prod', mailFrom: 'no-reply' })).toThrow(/mailFrom/);
  });

  it('rejects malformed rate-limit policies and unsupported log retention', () => {
    expect(() => parseSettings({ ...testContext, stage: 'prod', rateLimits: { save: '120 per minute' } })).toThrow(
      /rateLimits\.save/,
    );
    expect(() => parseSettings({ ...testContext, stage: 'prod', logRetentionDays: 31 })).toThrow(/logRetentionDays/);
  });

  it('rejects worker settings Lambda would refuse', () => {
    expect(() =>
      parseSettings({ ...testContext, stage: 'prod', workers: { batchSize: 11, maxConcurrency: 5 } }),
    ).toThrow(/workers\.batchSize/);
    expect(() =>
      parseSettings({ ...testContext, stage: 'prod', workers: { batchSize: 5, maxConcurrency: 1 } }),
    ).toThrow(/workers\.maxConcurrency/);
  });

  it("lays a stage's overrides (gleaner.stages.<stage>) over the shared settings, key by key", () => {
    const context = {
      ...testContext,
      stages: {
        dev: { throttle: { save: { rateLimit: 1, burstLimit: 2 } }, logLevel: 'DEBUG', apiGatewayAccountRole: true },
      },
    };
    const dev = settingsForStage(context, 'dev');
    expect(dev.throttle.save).toEqual({ rateLimit: 1, burstLimit: 2 });
    expect(dev.throttle.feed).toEqual(testContext.throttle.feed);
    expect(dev).toMatchObject({
      stage: 'dev',
      logLevel: 'DEBUG',
      apiGatewayAccountRole: true,
      corsAllowedOrigins: testContext.corsAllowedOrigins,
    });
    const prod = settingsForStage(context, 'prod');
    expect(prod).toMatchObject({
      stage: 'prod',
      throttle: testContext.throttle,
      logLevel: testContext.logLevel,
      apiGatewayAccountRole: true,
    });
    expect(() => settingsForStage({ ...testContext, stages: { dev: { workers: { batchSize: 50 } } } }, 'dev')).toThrow(
      /workers\.batchSize/,
    );
    expect(() => settingsForStage({ ...testContext, stages: { dev: 'fast' } }, 'dev')).toThrow(/gleaner\.stages\.dev/);
  });

  it('refreshes icons weekly unless told otherwise, and takes a public base URL only over HTTPS', () => {
    const { iconRefreshDays: _days, ...withoutRefresh } = testContext;
    expect(parseSettings({ ...withoutRefresh, stage: 'prod' }).iconRefreshDays).toBe(7);
    expect(
      parseSettings({ ...testContext, stage: 'prod', publicBaseUrl: 'https://feeds.example/' }).publicBaseUrl,
    ).toBe('https://feeds.example');
    expect(() => parseSettings({ ...testContext, stage: 'prod', publicBaseUrl: 'http://feeds.example' })).toThrow(
      /publicBaseUrl/,
    );
  });
});
