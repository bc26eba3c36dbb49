import { CfnParameter, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKey,
  type CfnMethod,
  type CfnRestApi,
  EndpointType,
  type GatewayResponse,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  type Method,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  MockIntegration,
  ResponseType,
  RestApi,
  type ThrottlingPerMethod,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { parseRateLimitPolicy, rateLimitHeaders } from '../functions/core/contract/rate-limit';
import {
  CORS_PREFLIGHT_MAX_AGE_SECONDS,
  checkRouteTable,
  corsAllowedOrigins,
  isRateLimited,
  type PreflightSettings,
  pathMethods,
  type RouteDefinition,
  type RouteGroup,
  routeEnvironment,
  routeFunctionDescription,
  routeMethods,
} from '../functions/platform/routes';
import { settings as handlerSettings, rateLimitSettings } from '../functions/platform/settings';
import { type AccessTargets, AppFunction } from './app-function';
import { ApiDeployment, RouteGroupStack, resourceGroups } from './route-group';
import { SEARCH_ENGINE_FUNCTION } from './search';
import type { GleanerSettings, Throttle } from './stage-settings';

export interface ApiProps {
  readonly routes: readonly RouteDefinition[];
  readonly settings: GleanerSettings;
  readonly targets: AccessTargets;
}

/**
 * The REST API: one Lambda proxy integration per route of the route table, throttled per route.
 * Routes served through CloudFront (`cdn: true`) require the API key CloudFront sends, so nobody
 * reaches them around its cache.
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  /** The value of the API key the CloudFront origin sends as `x-api-key`. */
  readonly cdnOriginKey: Secret;
  /** The route functions by handler module (routes naming the same module share one). */
  private readonly functions = new Map<string, AppFunction>();

  constructor(scope: Construct, id: string, { routes, settings, targets }: ApiProps) {
    super(scope, id);
    checkRouteTable(routes);
    const apiName = Stack.of(this).stackName;
    const logging = { retention: settings.logRetentionDays, removalPolicy: RemovalPolicy.DESTROY };
    const throttles = throttleParameters(Stack.of(this), settings.throttle);
    const quotaOf = (route: RouteDefinition): Throttle => {
      const quota = throttles[route.throttle];
      if (!quota)
        throw new Error(
          `Route ${route.id} uses the quota "${route.throttle}", which cdk.json context gleaner.throttle lacks.`,
        );
      return quota;
    };

    // The API's own resource holds only its root path and the prefixes route groups share; every
    // group's resources and methods sit in a nested stack of its own (lib/route-group.ts), and the
    // deployment and stage in another after them, so the next route costs resources in its group's
    // stack. (The construct id is not the first API's, `RestApi`: docs/deploying.md says why.)
    this.restApi = new RestApi(this, 'RestApiByGroup', {
      restApiName: apiName,
      description: 'Gleaner: bookmark capture and published feeds',
      // CloudFront fronts the API (lib/cdn.ts), so it needs no edge endpoint of its own.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Lambda proxy responses flagged isBase64Encoded (icons) go out as bytes whatever the Accept
      // header; request bodies arrive base64-encoded, which the save handler decodes.
      binaryMediaTypes: ['*/*'],
      // API Gateway writes execution logs through one role per account and region, which only one
      // stack may own: the default stage's unless the settings say otherwise.
      cloudWatchRole: settings.apiGatewayAccountRole,
      deploy: false,
    });
    // API Gateway would otherwise create the execution log group itself, without retention.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      ...logging,
      logGroupName: `API-Gateway-Execution-Logs_${this.restApi.restApiId}/${settings.stage}`,
    });

    const owners = resourceGroups(routes);
    const sharedResources = new Map<string, IResource>(
      [...owners]
        .filter(([, group]) => group === undefined)
        .map(([path]) => [path, this.restApi.root.resourceForPath(path)]),
    );
    const groupStacks = new Map<RouteGroup, RouteGroupStack>();
    const groupOf = (group: RouteGroup): RouteGroupStack => {
      const stack =
        groupStacks.get(group) ??
        new RouteGroupStack(this, `${pascalCase(group)}Routes`, {
          group,
          restApi: this.restApi,
          sharedResources,
          resourceGroups: owners,
        });
      groupStacks.set(group, stack);
      return stack;
    };

    const methodThrottles: ThrottlingPerMethod[] = [];
    const preflightMethods = new Map<
      IResource,
      { group: RouteGroupStack; preflight: PreflightSettings; methods: string[] }
    >();
    // Routes that name the same handler module share its function (the per-user API: one function, many routes).
    for (const route of routes) {
      const fn = this.functions.get(route.entry) ?? this.addRouteFunction(route, settings, targets);
      this.functions.set(route.entry, fn);
      const group = groupOf(route.group);
      const resource = group.resourceFor(route.path);
      // Each function gets one invoke permission for each route group's stack rather than two per
      // method (the method's and the console's test invoke): with some 190 methods, per-method
      // permissions would pass CloudFormation's 500-resource limit. API Gateway still calls a
      // function only for the methods integrated with it.
      const integration = new LambdaIntegration(fn.function, {
        scopePermissionToMethod: false,
        allowTestInvoke: false,
      });
      // HEAD goes to the same function, whose middleware drops the body.
      for (const httpMethod of routeMethods(route)) {
        const method = resource.addMethod(httpMethod, integration, { apiKeyRequired: route.cdn });
        group.methods.push(method);
        // A usage plan throttles only requests with an API key: the cached routes, which CloudFront calls.
        if (route.cdn) methodThrottles.push({ method, throttle: quotaOf(route) });
        acknowledgeAuthInFunction(method);
      }
      if (route.preflight)
        preflightMethods.set(resource, {
          group,
          preflight: route.preflight,
          methods: [...(preflightMethods.get(resource)?.methods ?? []), route.method],
        });
    }
    for (const [resource, { group, preflight, methods }] of preflightMethods) {
      const preflightMethod = resource.addCorsPreflight({
        allowOrigins: [...corsAllowedOrigins(preflight, settings.corsAllowedOrigins)],
        allowHeaders: [...preflight.allowHeaders],
        allowMethods: ['OPTIONS', ...methods],
        maxAge: Duration.seconds(CORS_PREFLIGHT_MAX_AGE_SECONDS),
      });
      // With binaryMediaTypes */* the preflight's empty body counts as binary, which its mock
      // integration's request template cannot transform (a 500) unless it is converted to text.
      (preflightMethod.node.defaultChild as CfnMethod).addPropertyOverride(
        'Integration.ContentHandling',
        'CONVERT_TO_TEXT',
      );
      group.methods.push(preflightMethod);
    }

    for (const route of routes.filter(
      (each, index) => routes.findIndex((other) => other.path === each.path) === index,
    )) {
      const group = groupOf(route.group);
      group.methods.push(refuseOtherMethods(group.resourceFor(route.path), pathMethods(routes, route.path)));
    }
    // The API's root answers 405 even without a route of its own: CDK refuses a RestApi whose own
    // stack holds no method, and a route table without `/` leaves it none.
    const rootMethods = routes.some((route) => route.path === '/') ? [] : [refuseOtherMethods(this.restApi.root, [])];

    const gatewayResponses = this.addErrorResponses(
      settings.corsAllowedOrigins,
      bodyRateLimitHeaders(routes, settings),
    );
    const deployment = new ApiDeployment(this, 'Deployment', {
      restApi: this.restApi,
      groups: [...groupStacks.values()],
      deployed: [...gatewayResponses, ...rootMethods],
      stage: {
        stageName: settings.stage,
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(new LogGroup(this, 'AccessLogs', logging)),
        accessLogFormat: accessLogFormat(),
        ...EXECUTION_LOGGING,
        metricsEnabled: false,
        ...stageThrottling(throttles.default!),
        // A method's own settings replace the stage's rather than inherit them: each repeats the
        // execution logging, and turns on the per-route metrics the alarms and dashboard read.
        methodOptions: Object.fromEntries(
          routes.flatMap((route) =>
            routeMethods(route).map((method) => [
              `${route.path}/${method}`,
              { ...EXECUTION_LOGGING, metricsEnabled: true, ...stageThrottling(quotaOf(route)) },
            ]),
          ),
        ),
      },
    });
    deployment.stage.node.addDependency(executionLogs);
    this.restApi.deploymentStage = deployment.stage;

    // The origin key of the current version, which CloudFront sends, and of the one before it, which
    // the API still accepts while the distribution's new origin header spreads to its edges (README,
    // "Rotating the CloudFront origin key").
    const version = settings.cdnOriginKeyVersion;
    const originKeys = (version > 1 ? [version - 1, version] : [version]).map((keyVersion) =>
      this.addOriginKey(keyVersion, apiName),
    );
    this.cdnOriginKey = originKeys.at(-1)!.secret;
    // Usage plans throttle only requests that carry an API key: here, everything CloudFront forwards
    // to the cached routes. The stage method settings above throttle every caller.
    const usagePlan = this.restApi.addUsagePlan('UsagePlan', {
      name: `${apiName}-throttles`,
      description:
        'Per-route throttles (the stack parameters Throttle*) for the requests CloudFront forwards with its API key (the cached routes); the stage method settings apply the same limits to all callers.',
      throttle: throttles.default,
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage, throttle: methodThrottles }],
    });
    for (const { apiKey } of originKeys) usagePlan.addApiKey(apiKey);

    this.acknowledgeNagFindings();
  }

  /**
   * A generated secret and the API key it becomes. CloudFormation resolves the secret (a dynamic
   * reference) into the key and CloudFront's origin header, so the value is in neither the template
   * nor the code. The key has no name: CloudFormation replaces it when its value changes, which it
   * cannot do for a named key.
   */
  private addOriginKey(version: number, apiName: string): { secret: Secret; apiKey: ApiKey } {
    const secret = new Secret(this, `CdnOriginKeyV${version}`, {
      description: `Value of the API key CloudFront sends to the ${apiName} API for the cached routes (origin key version ${version})`,
      generateSecretString: { passwordLength: 40, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const apiKey = new ApiKey(this, `CdnApiKeyV${version}`, {
      description: `Sent by CloudFront as x-api-key (origin key version ${version}): the cached routes accept requests from it only.`,
      // unsafeUnwrap gives the {{resolve:secretsmanager:…}} reference, not the secret itself.
      value: secret.secretValue.unsafeUnwrap(),
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'CloudFormation copies this value into the API key and the CloudFront origin header only when it updates those resources, so a Secrets Manager rotation would leave them apart; it is rotated by raising gleaner.cdnOriginKeyVersion, which replaces it in a deployment.',
    });
    return { secret, apiKey };
  }

  /** The route's function, with the grants and settings its `access`, quota and CDN use call for. */
  private addRouteFunction(route: RouteDefinition, settings: GleanerSettings, targets: AccessTargets): AppFunction {
    const fn = new AppFunction(this, route.owner ? functionIdOf(route.entry) : route.id, {
      entry: route.entry,
      description: routeFunctionDescription(route),
      logRetention: settings.logRetentionDays,
      logLevel: settings.logLevel,
      ...(route.access.includes('search:read') ? SEARCH_ENGINE_FUNCTION : {}),
    });
    fn.bindAccess(route.access, targets);
    const rateLimit = settings.rateLimits[route.throttle];
    if (rateLimit && isRateLimited(route.throttle))
      fn.function.addEnvironment(rateLimitSettings[route.throttle].name, rateLimit);
    for (const [name, value] of Object.entries(routeEnvironment(route))) fn.function.addEnvironment(name, value);
    if (route.preflight?.origins === 'configured')
      fn.function.addEnvironment(handlerSettings.corsAllowedOrigins.name, settings.corsAllowedOrigins.join(','));
    // Only CloudFront can call these methods (API key), so its viewer-address and host headers are true.
    if (route.cdn) fn.function.addEnvironment(handlerSettings.trustCdnHeaders.name, 'true');
    return fn;
  }

  /**
   * Tells every route function where users reach the service: the OAuth issuer, the links in mail,
   * the cookies' Secure flag, the addresses of feeds and icons. Called once the address is known, as
   * it is CloudFront's by default (see `apiOrigin` in lib/cdn.ts for why that makes no cycle).
   */
  usePublicBaseUrl(publicBaseUrl: string): void {
    for (const fn of this.functions.values())
      fn.function.addEnvironment(handlerSettings.publicBaseUrl.name, publicBaseUrl);
  }

  /** API Gateway's own errors in the contract's shape: every error body has a top-level `detail`. */
  private addErrorResponses(
    allowedOrigins: readonly string[],
    tooLargeHeaders: Record<string, string>,
  ): GatewayResponse[] {
    // Browsers hide error bodies without this header. Gateway errors carry nothing private, so with
    // several allowed origins the caller's own Origin is echoed.
    const allowOrigin = allowedOrigins.length === 1 ? `'${allowedOrigins[0]}'` : 'method.request.header.Origin';
    const responses: { type: ResponseType; statusCode?: string; body: string; headers?: Record<string, string> }[] = [
      {
        type: ResponseType.THROTTLED,
        statusCode: '429',
        body: detail({ code: 'rate_limited', message: 'Too many requests; slow down.', retry_after: 1 }),
        headers: { 'Retry-After': "'1'" },
      },
      // Only the route that takes a body can exceed API Gateway's 10 MB; see bodyRateLimitHeaders.
      {
        type: ResponseType.REQUEST_TOO_LARGE,
        statusCode: '413',
        body: detail('Request body too large'),
        headers: tooLargeHeaders,
      },
      { type: ResponseType.UNAUTHORIZED, statusCode: '401', body: detail('Unauthorized') },
      { type: ResponseType.ACCESS_DENIED, statusCode: '403', body: detail('Forbidden') },
      // A cached route called around CloudFront, without its API key.
      { type: ResponseType.INVALID_API_KEY, statusCode: '403', body: detail('Forbidden') },
      // API Gateway answers an unknown path or method with this type.
      { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '404', body: detail('Not Found') },
      // messageString is the message already quoted as a JSON string.
      { type: ResponseType.DEFAULT_4XX, body: '{"detail":$context.error.messageString}' },
      { type: ResponseType.DEFAULT_5XX, body: detail('Internal Server Error') },
    ];
    return responses.map(({ type, statusCode, body, headers }) =>
      this.restApi.addGatewayResponse(type.responseType, {
        type,
        statusCode,
        responseHeaders: { 'Access-Control-Allow-Origin': allowOrigin, ...headers },
        templates: { 'application/json': body },
      }),
    );
  }

  private acknowledgeNagFindings(): void {
    Validations.of(this.restApi.node.defaultChild as CfnRestApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "Each function validates its request itself so that invalid input gets the contract's 422 HTTPValidationError body.",
    });
    const accountRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (accountRole) {
      Validations.of(accountRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The account-level API Gateway logging role uses the AWS-provided service-role policy made for it.',
      });
    }
    Validations.of(this.restApi.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No WAF web ACL for now: abuse is bounded by the stage throttles and the per-subject rate limits in DynamoDB, and the public routes sit behind CloudFront, where a web ACL would belong.',
    });
  }
}

/**
 * 405 with `Allow` for the methods a route's path does not take (API Gateway would answer 403
 * "Missing Authentication Token"): ANY catches every method the path defines no method for.
 */
function refuseOtherMethods(resource: IResource, allowed: readonly string[]): Method {
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      requestTemplates: { 'application/json': '{"statusCode": 405}' },
      integrationResponses: [
        {
          statusCode: '405',
          responseParameters: { 'method.response.header.Allow': `'${allowed.join(', ')}'` },
          responseTemplates: { 'application/json': detail('Method Not Allowed') },
        },
      ],
    }),
    { methodResponses: [{ statusCode: '405', responseParameters: { 'method.response.header.Allow': true } }] },
  );
  // As for the preflight: a request body counts as binary (*/*), which the mock's template cannot transform.
  (method.node.defaultChild as CfnMethod).addPropertyOverride('Integration.ContentHandling', 'CONVERT_TO_TEXT');
  Validations.of(method).acknowledge(
    { id: 'AwsSolutions-APIG4', reason: 'A mock that only answers 405; it reaches no function and no data.' },
    { id: 'AwsSolutions-COG4', reason: 'A mock that only answers 405; it reaches no function and no data.' },
  );
  return method;
}

/** `functions/owner-api/handler.ts` → `OwnerApi`: the construct id of a function several routes share. */
function functionIdOf(entry: string): string {
  return pascalCase(entry.split('/').at(-2) ?? entry);
}

/** `owner-api` → `OwnerApi`. */
function pascalCase(name: string): string {
  return name.replace(/(^|-)(\w)/g, (_, _dash: string, letter: string) => letter.toUpperCase());
}

function acknowledgeAuthInFunction(method: Method): void {
  Validations.of(method).acknowledge(
    {
      id: 'AwsSolutions-APIG4',
      reason:
        "The save function authenticates personal access tokens itself (only their hashes are stored in DynamoDB); the owner's functions authenticate browser sessions and OAuth access tokens themselves; the feed and icon routes are public by contract and accept only CloudFront, by its API key.",
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'Callers hold personal access tokens checked by the save function, or need no credentials (public feeds); there are no Cognito users.',
    },
  );
}

/**
 * The RateLimit headers of API Gateway's own 413. Gateway responses are the same for every route and
 * the function never ran, so they carry the policy of the routes that take a body (POST) with its
 * full quota, and the whole window as RateLimit-Reset (an upper bound); the local stack does the same.
 */
function bodyRateLimitHeaders(routes: readonly RouteDefinition[], settings: GleanerSettings): Record<string, string> {
  const policies = new Set(
    // The contract's POST: the owner's routes take small forms and JSON, well under the gateway's 10 MB.
    routes
      .filter((route) => route.method === 'POST' && !route.owner)
      .flatMap((route) => settings.rateLimits[route.throttle] ?? []),
  );
  if (policies.size !== 1) return {};
  const policy = parseRateLimitPolicy([...policies][0]!);
  const headers = rateLimitHeaders({
    allowed: true,
    policy,
    remaining: policy.limit,
    resetSeconds: policy.windowSeconds,
  });
  // Gateway response header values are static strings in single quotes.
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));
}

/** Execution logging of the stage and of every method (a method's settings do not inherit the stage's). */
const EXECUTION_LOGGING = { loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false } as const;

/**
 * Each quota's rate and burst as stack parameters, defaulting to cdk.json context: an operator tunes
 * them in the CloudFormation console (update the stack, keep its template), and `cdk deploy` keeps
 * the values it finds, as it reuses a deployed stack's parameter values unless told otherwise.
 */
function throttleParameters(stack: Stack, quotas: GleanerSettings['throttle']): Record<string, Throttle> {
  return Object.fromEntries(
    Object.entries(quotas).map(([quota, { rateLimit, burstLimit }]) => {
      const name = `Throttle${quota.charAt(0).toUpperCase()}${quota.slice(1)}`;
      const scope =
        quota === 'default' ? 'every route without a quota of its own' : `the routes of the "${quota}" quota`;
      const rate = new CfnParameter(stack, `${name}RateLimit`, {
        type: 'Number',
        default: rateLimit,
        minValue: 0,
        description: `Requests per second API Gateway admits on ${scope} (cdk.json context: ${rateLimit}).`,
      });
      const burst = new CfnParameter(stack, `${name}BurstLimit`, {
        type: 'Number',
        default: burstLimit,
        minValue: 0,
        description: `Requests API Gateway admits at once above that rate on ${scope} (cdk.json context: ${burstLimit}).`,
      });
      return [quota, { rateLimit: rate.valueAsNumber, burstLimit: burst.valueAsNumber }];
    }),
  );
}

function stageThrottling({ rateLimit, burstLimit }: Throttle): MethodDeploymentOptions {
  return { throttlingRateLimit: rateLimit, throttlingBurstLimit: burstLimit };
}

function detail(value: unknown): string {
  return JSON.stringify({ detail: value });
}

function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      sourceIp: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      method: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      status: AccessLogField.contextStatus(),
      errorType: AccessLogField.contextErrorResponseType(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationStatus: AccessLogField.contextIntegrationStatus(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );
}
