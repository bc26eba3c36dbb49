import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { z } from 'zod';
import { parseRateLimitPolicy } from '../functions/core/contract/rate-limit';

/**
 * A deployment stage's settings: the `gleaner` context in cdk.json (throttles, alarms, retention…),
 * read by bin/app.ts and turned into resources and environment variables by the stack. What a function
 * reads at run time is the other half, `functions/platform/settings.ts`, which the stack's variables
 * follow; this file stays out of the Lambda bundles because it needs aws-cdk-lib.
 */

/** API Gateway token bucket: steady requests per second and the burst above it. */
const throttleSchema = z.object({
  rateLimit: z.number().positive(),
  burstLimit: z.int().nonnegative(),
});

/** The stage of a deployment that names none (`cdk deploy` without `-c stage=…`): the stack `Gleaner`. */
export const DEFAULT_STAGE = 'prod';

const settingsSchema = z.object({
  /** API Gateway stage name; also names the stack's API and usage plan. */
  stage: z.string().regex(/^[A-Za-z0-9_-]+$/, 'use letters, digits, "-" and "_"'),
  /** `default` covers the whole stage; every other key is a route quota (`RouteDefinition.throttle`). */
  throttle: z.object({ default: throttleSchema }).catchall(throttleSchema),
  /** Application rate-limit policies per route quota, handed to the functions as `<QUOTA>_RATE_LIMIT`. */
  rateLimits: z.record(z.string(), z.string().refine(isRateLimitPolicy, 'expected a policy of the form "120;w=60"')),
  corsAllowedOrigins: z.array(z.string().min(1)).nonempty(),
  logRetentionDays: z.enum(RetentionDays),
  logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']),
  /** How the SQS-triggered workers drain their queues. */
  workers: z.object({
    /** Messages per invocation; above 10 Lambda would need a batching window. */
    batchSize: z.int().min(1).max(10),
    /** Concurrent invocations per queue (Lambda allows 2–1000): bounds the load on the sites fetched. */
    maxConcurrency: z.int().min(2).max(1000),
  }),
  /**
   * Raise by one to rotate the key CloudFront sends to the cached routes: a new key replaces the
   * oldest, and the API accepts the previous one through the deployment.
   */
  cdnOriginKeyVersion: z.int().min(1).default(1),
  /** An address the alarm topic mails (it must confirm the subscription once); none: subscribe in the console. */
  alarmEmail: z.email().optional(),
  /** Alarm thresholds (lib/alarms.ts says what each watches). */
  alarms: z
    .object({
      /** Share of API requests answered 5XX, over 5 minutes, in percent. */
      apiErrorRatePercent: z.number().positive().max(100).default(1),
      /** p99 latency of any one route, over 5 minutes. */
      apiLatencyP99Ms: z.int().positive().default(3000),
      /** p99 duration of any function, as a share of its timeout, in percent. */
      durationPercentOfTimeout: z.int().min(1).max(100).default(80),
      /** Age of the oldest message in a work queue. */
      queueOldestMessageSeconds: z.int().positive().default(900),
      /** Age of the oldest enrichment waiting in the outbox (the issue's 30 minutes). */
      outboxOldestPendingSeconds: z.int().positive().default(1800),
      /** Share of CloudFront answers that are 5xx, over 5 minutes, in percent. */
      cdnErrorRatePercent: z.number().positive().max(100).default(1),
    })
    .prefault({}),
  /**
   * Whether this stack owns the account's API Gateway logging role (`AWS::ApiGateway::Account`, one
   * per account and region). Default: the default stage does; other stages in the same account use it.
   */
  apiGatewayAccountRole: z.boolean().optional(),
  /**
   * The embedding model of semantic and hybrid search: `builtin` (Universal Sentence Encoder lite,
   * shipped in the search functions' bundles, no service), or `bedrock` (Titan Text Embeddings V2,
   * which the account must have access to).
   */
  embeddings: z.enum(['builtin', 'bedrock']).default('builtin'),
  /** Days before a site's stored favicon is fetched again (`ICON_REFRESH_DAYS`). */
  iconRefreshDays: z.int().positive().default(7),
  /**
   * A custom domain on the CloudFront distribution (e.g. `feeds.example.com`), with an ACM
   * certificate for it in us-east-1 (CloudFront takes certificates from there only).
   */
  domainName: z.hostname().regex(/\./, 'a fully qualified domain name').optional(),
  certificateArn: z
    .string()
    .regex(
      /^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/,
      'an ACM certificate ARN in us-east-1, where CloudFront takes certificates from',
    )
    .optional(),
  /** A Route 53 hosted zone for domainName: the stack then adds its alias records (A and AAAA). */
  hostedZoneId: z
    .string()
    .regex(/^Z[A-Z0-9]+$/, 'a Route 53 hosted zone id')
    .optional(),
  /**
   * An AWS WAF web ACL on CloudFront: AWS's common rule set and a rate limit per client address.
   * A CloudFront web ACL lives in us-east-1, so this needs the stack there; elsewhere, create one in
   * us-east-1 and give its ARN as wafWebAclArn.
   */
  waf: z.boolean().default(false),
  /** Requests one client address may make in 5 minutes before the web ACL blocks it. */
  wafRateLimit: z.int().min(100).max(2_000_000_000).default(2000),
  /** An existing CloudFront web ACL (in us-east-1) to attach instead. */
  wafWebAclArn: z
    .string()
    .regex(/^arn:aws[\w-]*:wafv2:us-east-1:\d{12}:global\/webacl\/.+$/, 'a global (CloudFront) web ACL ARN')
    .optional(),
  /**
   * The verified SES identity accounts' mail (verification, password reset, invitations) is sent
   * from. Required: without a verified sender no sign-up could ever be confirmed (docs/deploying.md).
   */
  mailFrom: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'set "mailFrom" to an address of an SES identity verified in this account and region, e.g. "Gleaner <no-reply@mail.your-domain.example>": the web app mails sign-up confirmations and password links from it (see docs/deploying.md)'
          : undefined,
    })
    .regex(/^[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$/, 'an address, or a name and <address>'),
  /**
   * The address users reach the service at, given to every function (OAuth issuer, links in mail,
   * cookies, feed URLs). Default: `https://<domainName>` with a custom domain, else the
   * distribution's own domain. Set it when something else fronts CloudFront.
   */
  publicBaseUrl: z
    .url({ protocol: /^https$/ })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
});

export type GleanerSettings = z.infer<typeof settingsSchema> & { readonly apiGatewayAccountRole: boolean };
export type Throttle = z.infer<typeof throttleSchema>;

/**
 * The settings of one stage: cdk.json context `gleaner`, with `gleaner.stages.<stage>` laid over it
 * (objects merged key by key, anything else replaced), e.g. lower throttles for `dev`.
 */
export function settingsForStage(context: unknown, stage: string): GleanerSettings {
  const { stages, ...base } = (context ?? {}) as { stages?: Record<string, unknown> };
  const overrides = stages?.[stage];
  if (overrides !== undefined && !isRecord(overrides))
    throw new Error(`Invalid Gleaner settings (cdk.json context "gleaner.stages.${stage}"): expected an object`);
  return parseSettings({ ...deepMerge(base, overrides ?? {}), stage });
}

function deepMerge(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] = isRecord(current) && isRecord(value) ? deepMerge(current, value) : value;
  }
  return merged;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates the operator-tunable settings (cdk.json context `gleaner` plus the stage). */
export function parseSettings(input: unknown): GleanerSettings {
  const result = settingsSchema.safeParse(input);
  if (!result.success) {
    throw new Error(`Invalid Gleaner settings (cdk.json context "gleaner"):\n${z.prettifyError(result.error)}`);
  }
  const settings = result.data;
  if (!!settings.domainName !== !!settings.certificateArn)
    throw new Error('Invalid Gleaner settings (cdk.json context "gleaner"): domainName and certificateArn go together');
  if (settings.waf && settings.wafWebAclArn)
    throw new Error(
      'Invalid Gleaner settings (cdk.json context "gleaner"): waf creates a web ACL and wafWebAclArn names one; choose one',
    );
  if (settings.hostedZoneId && !settings.domainName)
    throw new Error('Invalid Gleaner settings (cdk.json context "gleaner"): hostedZoneId needs domainName');
  return {
    ...settings,
    apiGatewayAccountRole: settings.apiGatewayAccountRole ?? settings.stage === DEFAULT_STAGE,
    publicBaseUrl: settings.publicBaseUrl ?? (settings.domainName ? `https://${settings.domainName}` : undefined),
  };
}

function isRateLimitPolicy(policy: string): boolean {
  try {
    parseRateLimitPolicy(policy);
    return true;
  } catch {
    return false;
  }
}
