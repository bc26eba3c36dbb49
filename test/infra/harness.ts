import { readFileSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { RouteDefinition } from '../../functions/platform/routes';
import { Api } from '../../lib/api';
import { DataTable } from '../../lib/data';
import { GleanerStack } from '../../lib/gleaner-stack';
import { Identity } from '../../lib/identity';
import { type GleanerSettings, parseSettings } from '../../lib/stage-settings';
import { createWorkQueues } from '../../lib/work-queue';

export const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/** Operator settings unlike cdk.json's, so assertions show the values come from the settings passed in. */
export const testContext = {
  throttle: {
    default: { rateLimit: 77, burstLimit: 88 },
    save: { rateLimit: 3, burstLimit: 7 },
    feed: { rateLimit: 31, burstLimit: 62 },
    icon: { rateLimit: 41, burstLimit: 82 },
    openapi: { rateLimit: 5, burstLimit: 9 },
    web: { rateLimit: 21, burstLimit: 42 },
  },
  rateLimits: { save: '42;w=30', feed: '420;w=30' },
  corsAllowedOrigins: ['https://extension.example'],
  logRetentionDays: 14,
  logLevel: 'DEBUG',
  workers: { batchSize: 7, maxConcurrency: 9 },
  iconRefreshDays: 3,
};

export function testSettings(overrides: Record<string, unknown> = {}): GleanerSettings {
  return parseSettings({ ...testContext, ...overrides, stage: 'test' });
}

/** An app with cdk.json's feature flags and asset bundling skipped, as the CLI would build it, minus esbuild. */
export function testApp(): App {
  return new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
}

export function buildGleanerStack(settings = testSettings()) {
  const app = testApp();
  const stack = new GleanerStack(app, 'GleanerTest', { settings });
  return { stack, template: Template.fromStack(stack) };
}

/** The API construct alone, for route tables other than the real one. */
export function buildApi(routes: readonly RouteDefinition[], settings = testSettings()) {
  const stack = new Stack(testApp(), 'ApiTest');
  const targets = {
    data: new DataTable(stack, 'Data'),
    queues: createWorkQueues(stack),
    identity: new Identity(stack, 'Identity', { mailFrom: settings.mailFrom }),
  };
  new Api(stack, 'Api', { routes, settings, targets });
  return Template.fromStack(stack);
}

export function nagViolations(scope: IConstruct) {
  return new AwsSolutionsChecks(scope, { verbose: true }).validateScope(scope).violations;
}

/** Every rule acknowledged below `scope`, with the construct it was acknowledged on and the reason given. */
export function acknowledgments(scope: IConstruct): { path: string; id: string; reason: unknown }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, unknown>))
      .map(([id, reason]) => ({ path: construct.node.path, id, reason })),
  );
}

type CfnResources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** The API Gateway methods of a template with their full resource paths (`/api/v1/bookmarks/save`). */
export function apiMethods(template: Template) {
  const resources = template.toJSON().Resources as CfnResources;
  const pathOf = (parent: unknown): string => {
    const ref = (parent as { Ref?: string }).Ref;
    const resource = ref ? resources[ref] : undefined;
    if (resource?.Type !== 'AWS::ApiGateway::Resource') return '';
    return `${pathOf(resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
  };
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
    .map(({ Properties }) => ({
      httpMethod: Properties.HttpMethod as string,
      // The API's root resource (GET /) is not an AWS::ApiGateway::Resource of its own.
      path: pathOf(Properties.ResourceId) || '/',
      properties: Properties,
    }));
}

/** What a quota's throttle is in the template: references to its two stack parameters. */
export function throttleOf(quota: string) {
  const name = `Throttle${quota.charAt(0).toUpperCase()}${quota.slice(1)}`;
  return { rateLimit: { Ref: `${name}RateLimit` }, burstLimit: { Ref: `${name}BurstLimit` } };
}

/** A method's resource path as a stage's MethodSettings write it (`/~1api~1v1~1bookmarks~1save`). */
export function stageResourcePath(path: string): string {
  // API Gateway names the root resource `/` there, not `/~1`.
  return path === '/' ? '/' : `/${path.replace(/\//g, '~1')}`;
}

/** The single resource of `type` whose properties match, by logical id. */
export function onlyResource(
  template: Template,
  type: string,
  props?: unknown,
): [string, { Properties: Record<string, any> }] {
  const found = Object.entries(template.findResources(type, props ? { Properties: props } : undefined));
  if (found.length !== 1) throw new Error(`Expected one ${type}, found ${found.length}`);
  return found[0] as [string, { Properties: Record<string, any> }];
}
