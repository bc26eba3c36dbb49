import { readFileSync } from 'node:fs';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_RELEASE_PER_SHARD } from '../../functions/core/enrich/outbox';
import { IMPORT_CHUNK_LINKS } from '../../functions/core/import/chunks';
import { IDEMPOTENCY_LEASE_SECONDS } from '../../functions/core/save/idempotency';
import { NOTE_BODY_MAX_BYTES } from '../../functions/core/save/note-body';
import { ROUTE_TIMEOUT_SECONDS } from '../../functions/platform/routes';
import { RouteGroupStack } from '../../lib/route-group';
import { buildGleanerStack, RESOURCE_BUDGET, ROOT_RESOURCE_BUDGET, resourcesOfService } from './harness';

/**
 * The numbers the docs state about the code, read from the docs and held to the code: a change to
 * either that leaves them apart fails here. (Measurements, such as the bench's figures, are not
 * statements about the code and are not checked.)
 */

const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');

/** The numbers `pattern`'s groups capture in `text`; fails when the docs no longer say it that way. */
function stated(text: string, pattern: RegExp): number[] {
  const match = pattern.exec(text);
  expect(match, `the docs no longer say ${pattern}`).not.toBeNull();
  return match!.slice(1).map((group) => Number(group.replace(/,/g, '')));
}

/** An "about" number: within a tenth of the real one. */
const within = (real: number, stated: number) => Math.abs(stated - real) <= Math.max(1, real / 10);

let built: ReturnType<typeof buildGleanerStack>;
beforeAll(() => {
  built = buildGleanerStack();
}, 180_000);

describe('numbers in the docs', () => {
  it('state the import worker’s chunk and how many imported pages each sweep releases', () => {
    const imports = doc('import.md');
    expect(stated(imports, /in chunks of (\d+) links/)).toEqual([IMPORT_CHUNK_LINKS]);
    expect(stated(imports, /hands at most (\d+) per shard, ([\d,]+) in all/)).toEqual([
      IMPORT_RELEASE_PER_SHARD,
      IMPORT_RELEASE_PER_SHARD * 16,
    ]);
  });

  it('state the resource budgets the tests hold, and about the resources the templates have', () => {
    expect(
      stated(doc('operations.md'), /a test fails at (\d+) in the service's stack and at (\d+) in any other/),
    ).toEqual([ROOT_RESOURCE_BUDGET, RESOURCE_BUDGET]);
    const deploying = doc('deploying.md');
    expect(
      stated(deploying, /keeps the service's stack under (\d+) resources and every other template under (\d+)/),
    ).toEqual([ROOT_RESOURCE_BUDGET, RESOURCE_BUDGET]);
    const [root, largestGroup] = stated(deploying, /\(about (\d+) and about (\d+) in the largest route group today\)/);
    const count = (stack: Stack) => Object.keys(Template.fromStack(stack).toJSON().Resources).length;
    const groups = built.stack.node.findAll().filter((construct) => construct instanceof RouteGroupStack);
    expect(within(count(built.stack), root!), `${count(built.stack)} resources in the service's stack`).toBe(true);
    const largest = Math.max(...groups.map(count));
    expect(within(largest, largestGroup!), `${largest} resources in the largest route group`).toBe(true);
  });

  it('count the alarms and their cost', () => {
    const [alarms, dollars] = stated(
      doc('operations.md'),
      /About (\d+) alarms cost about \$([\d.]+) a month at \$0\.10 each/,
    );
    const real = Object.keys(resourcesOfService(built, 'AWS::CloudWatch::Alarm')).length;
    expect(within(real, alarms!), `${real} alarms`).toBe(true);
    expect(dollars).toBeCloseTo(alarms! * 0.1, 2);
  });

  it("state the note body's limit and the idempotency lease against the route timeout", () => {
    const kb = NOTE_BODY_MAX_BYTES / 1024;
    expect(stated(doc('saving.md'), /A note body is capped at (\d+) KB/)).toEqual([kb]);
    expect(stated(doc('reliability.md'), /keeps the body within its (\d+) KB/)).toEqual([kb]);
    expect(
      stated(doc('saving.md'), /The lease\*\* \((\d+) s\) is longer than the save function's timeout \((\d+) s\)/),
    ).toEqual([IDEMPOTENCY_LEASE_SECONDS, ROUTE_TIMEOUT_SECONDS]);
  });
});
