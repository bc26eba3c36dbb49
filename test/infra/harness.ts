import { readFileSync } from 'node:fs';
import { App, type NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { RouteDefinition } from '../../functions/platform/routes';
import { Api } from '../../lib/api';
import { ArticleStore } from '../../lib/article-store';
import { DataTable } from '../../lib/data';
import { GleanerStack } from '../../lib/gleaner-stack';
import { Identity } from '../../lib/identity';
import { ImportUploads } from '../../lib/import-uploads';
import { ApiDeployment, RouteGroupStack } from '../../lib/route-group';
import { SearchIndexStore } from '../../lib/search';
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
    owner: { rateLimit: 23, burstLimit: 46 },
    web: { rateLimit: 19, burstLimit: 38 },
  },
  rateLimits: { save: '42;w=30', feed: '420;w=30', owner: '240;w=30' },
  corsAllowedOrigins: ['https://extension.example'],
  logRetentionDays: 14,
  logLevel: 'DEBUG',
  workers: { batchSize: 7, maxConcurrency: 9 },
  iconRefreshDays: 3,
  mailFrom: 'Gleaner Test <no-reply@mail.gleaner.test>',
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
  const template = Template.fromStack(stack);
  return {
    stack,
    template,
    monitoring: resolvedNestedTemplate(template, stack.monitoring),
    api: withApiStacks(stack, template),
  };
}

/**
 * The stack's template with the resources of the API's nested stacks (its route groups, deployment
 * and stage) in it, their parameters resolved: the whole REST API, as if in one template.
 */
function withApiStacks(stack: Stack, template: Template): Template {
  const nested = stack.node
    .findAll()
    .filter(
      (construct): construct is NestedStack =>
        construct instanceof RouteGroupStack || construct instanceof ApiDeployment,
    );
  const resources = { ...(template.toJSON().Resources as Record<string, unknown>) };
  for (const each of nested)
    for (const [id, resource] of Object.entries(resolvedNestedTemplate(template, each).toJSON().Resources ?? {})) {
      if (id in resources) throw new Error(`Two stacks of the API define ${id}`);
      resources[id] = resource;
    }
  return Template.fromJSON({ ...template.toJSON(), Resources: resources });
}

/**
 * A nested stack's template with each parameter its parent passes replaced by the value passed
 * (`{ Ref: <parent logical id> }`…), so assertions read it as if its resources were in the parent.
 */
function resolvedNestedTemplate(parent: Template, nested: NestedStack): Template {
  const nestedId = nested.nestedStackResource!.logicalId;
  const resource = (parent.toJSON().Resources as Record<string, { Properties?: { Parameters?: object } }>)[
    // The logical id is a token until the parent is synthesized; the parent template has it resolved.
    Stack.of(nested.nestedStackResource!).resolve(nestedId) as string
  ];
  const passed = (resource?.Properties?.Parameters ?? {}) as Record<string, unknown>;
  const substitute = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(substitute);
    if (typeof value !== 'object' || value === null) return value;
    const ref = (value as { Ref?: unknown }).Ref;
    if (typeof ref === 'string' && Object.keys(value).length === 1 && ref in passed) return passed[ref];
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, substitute(inner)]));
  };
  return Template.fromJSON(substitute(Template.fromStack(nested).toJSON()) as Record<string, unknown>);
}

/** Every resource of `type` in the service's stack and its monitoring stack (nested parameters resolved). */
export function resourcesOfService(built: ReturnType<typeof buildGleanerStack>, type: string) {
  return { ...built.template.findResources(type), ...built.monitoring.findResources(type) };
}

/** The API construct alone, for route tables other than the real one. */
export function buildApi(routes: readonly RouteDefinition[], settings = testSettings()) {
  return buildApiStack(routes, settings).template;
}

/** The API construct alone in a stack: the stack, and its template with the API's nested stacks in it. */
export function buildApiStack(routes: readonly RouteDefinition[], settings = testSettings()) {
  const stack = new Stack(testApp(), 'ApiTest');
  const targets = {
    data: new DataTable(stack, 'Data'),
    queues: createWorkQueues(stack),
    identity: new Identity(stack, 'Identity', { mailFrom: settings.mailFrom }),
    search: new SearchIndexStore(stack, 'SearchIndex', { settings }),
    articles: new ArticleStore(stack, 'Articles', { settings }),
    uploads: new ImportUploads(stack, 'ImportUploads', { settings }),
  };
  new Api(stack, 'Api', { routes, settings, targets });
  return { stack, template: withApiStacks(stack, Template.fromStack(stack)) };
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
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::ApiGateway::Method')
    .map(([id, { Properties }]) => ({
      id,
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

/**
 * CloudFormation allows 500 resources a stack. The service's stack stays under ROOT_RESOURCE_BUDGET
 * (about 170 with every option on: the data, the functions, CloudFront, the RestApi itself) and every
 * nested stack (the route groups, the alarms) under RESOURCE_BUDGET, so each has room to grow and a
 * stack that nears the limit fails a test long before a deployment. (docs/deploying.md states both.)
 */
export const ROOT_RESOURCE_BUDGET = 250;
export const RESOURCE_BUDGET = 300;

/**
 * A line for each template (by name) with as many resources as its budget or more: the root's for
 * `root`, RESOURCE_BUDGET for the others.
 */
export function overResourceBudget(templates: Record<string, { Resources?: object }>, root?: string): string[] {
  return Object.entries(templates)
    .map(([name, template]) => {
      const budget = name === root ? ROOT_RESOURCE_BUDGET : RESOURCE_BUDGET;
      return [name, Object.keys(template.Resources ?? {}).length, budget] as const;
    })
    .filter(([, count, budget]) => count >= budget)
    .map(
      ([name, count, budget]) =>
        `${name} has ${count} resources, not under the budget of ${budget} (CloudFormation refuses a stack past 500): move a group of them into a nested stack, as lib/route-group.ts does the routes and lib/monitoring.ts the alarms, or let routes share a function`,
    );
}

/** The CDK's own function that copies the web assets into their bucket at deployment (lib/web-assets.ts). */
const BUCKET_DEPLOYMENT_FUNCTION = /^CustomCDKBucketDeployment/;

/** The service's functions (routes, workers, tasks, consumers): every Lambda function but the CDK's deployment one. */
export function appFunctions(template: Template): [string, { Properties: Record<string, any> }][] {
  return Object.entries(template.findResources('AWS::Lambda::Function')).filter(
    ([id]) => !BUCKET_DEPLOYMENT_FUNCTION.test(id),
  ) as [string, { Properties: Record<string, any> }][];
}
