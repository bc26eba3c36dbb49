import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  checkRouteTable,
  type RouteDefinition,
  type RouteGroup,
  routeGroups,
  routes,
} from '../../functions/platform/routes';
import { RouteGroupStack } from '../../lib/route-group';
import { apiMethods, buildApiStack, buildGleanerStack, testSettings } from './harness';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The API alone for a route table: the stack's template, each route group's by group, and all in one. */
function buildApiStacks(table: readonly RouteDefinition[]) {
  const { stack, template } = buildApiStack(table);
  const groups = stack.node.findAll().filter((construct) => construct instanceof RouteGroupStack);
  return {
    all: template,
    root: Template.fromStack(stack).toJSON().Resources as Resources,
    groups: new Map(groups.map((group) => [group.group, Template.fromStack(group).toJSON().Resources as Resources])),
  };
}

/** Every resource but the nested stacks, whose template addresses change with their templates. */
function withoutNestedStacks(resources: Resources): Resources {
  return Object.fromEntries(
    Object.entries(resources).filter(([, resource]) => resource.Type !== 'AWS::CloudFormation::Stack'),
  );
}

/** Each test synthesizes whole stacks, some several: minutes on a loaded machine, never a measure of anything. */
const SYNTHESIS = 180_000;

describe('the API split by route group', () => {
  it(
    'keeps the logical id of every stateful resource the service had in one stack (tables, buckets, queues, secrets, API keys, log groups, topic)',
    () => {
      const before = JSON.parse(
        readFileSync(new URL('./stateful-logical-ids.json', import.meta.url), 'utf8'),
      ) as Record<string, string[]>;
      const { template } = buildGleanerStack(
        testSettings({ alarmEmail: 'oncall@example.com', waf: true, cdnOriginKeyVersion: 2 }),
      );
      const resources = template.toJSON().Resources as Resources;
      for (const [type, ids] of Object.entries(before))
        for (const id of ids) expect(resources[id]?.Type, `${type} ${id}`).toBe(type);
    },
    SYNTHESIS,
  );

  it(
    "puts each route's methods in its group's stack, and every group of the table has one",
    () => {
      const { all, groups } = buildApiStacks(routes);
      expect([...groups.keys()].sort()).toEqual([...routeGroups].sort());
      const methods = apiMethods(all);
      for (const [group, resources] of groups) {
        const paths = new Set(methods.filter((method) => method.id in resources).map((method) => method.path));
        // The API's root path keeps its methods in the service's stack, beside the root resource.
        const own = new Set(
          routes.filter((route) => route.group === group && route.path !== '/').map((route) => route.path),
        );
        expect([...paths].sort(), group).toEqual([...own].sort());
      }
    },
    SYNTHESIS,
  );

  it(
    'costs ten new routes of a group resources in that group alone: the service stack and the other groups stay as they were',
    () => {
      const group: RouteGroup = 'owner-api';
      const template = routes.find((route) => route.group === group && route.id === 'ListMyNotes')!;
      const added = Array.from(
        { length: 10 },
        (_, index): RouteDefinition => ({
          ...template,
          id: `Synthetic${index}`,
          path: `/api/v2/me/synthetic-${index}`,
        }),
      );
      const before = buildApiStacks(routes);
      const after = buildApiStacks([...routes, ...added]);
      expect(withoutNestedStacks(after.root)).toEqual(withoutNestedStacks(before.root));
      expect(Object.keys(after.root).sort()).toEqual(Object.keys(before.root).sort());
      for (const other of routeGroups.filter((each) => each !== group))
        expect(after.groups.get(other), other).toEqual(before.groups.get(other));
      // For each: its resource, its method, its 405 and its CORS preflight (the per-user API's).
      expect(Object.keys(after.groups.get(group)!).length - Object.keys(before.groups.get(group)!).length).toBe(40);
    },
    SYNTHESIS,
  );

  it(
    'refuses routes on one path in different groups (one API Gateway resource lives in one stack)',
    () => {
      const save = routes.find((route) => route.id === 'SaveBookmark')!;
      expect(() =>
        checkRouteTable([save, { ...save, id: 'SaveElsewhere', method: 'PUT', group: 'web-pages' }]),
      ).toThrow(/SaveBookmark and SaveElsewhere share \/api\/v1\/bookmarks\/save but not its group/);
    },
    SYNTHESIS,
  );
});
