import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  initialLayout,
  LayoutError,
  liveSet,
  planBuild,
  shardOf,
  switchedLayout,
  tableSetPrefix,
  writeSets,
} from '../../functions/core/search/shards';

describe('routing a user to a shard', () => {
  it('is stable: the same user id gives the same shard on every machine and run', () => {
    // Fixed values: a change of the hash would move every user's notes away from their shard.
    expect(shardOf('00000000-0000-4000-8000-000000000000', 64)).toBe(53);
    expect(shardOf('3f2504e0-4f89-41d3-9a0c-0305e82c3301', 64)).toBe(49);
    expect(shardOf('3f2504e0-4f89-41d3-9a0c-0305e82c3301', 16)).toBe(1);
    const userId = randomUUID();
    expect(shardOf(userId, 64)).toBe(shardOf(userId, 64));
  });

  it('spreads users over the shards about evenly', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) counts[shardOf(randomUUID(), 16)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it('keeps the tables of an index from before shards as shard 0 of 1 at generation 0', () => {
    expect(tableSetPrefix(1, 0, 0)).toBe('');
    expect(tableSetPrefix(1, 1, 0)).toBe('n1g1s0_');
    expect(tableSetPrefix(64, 0, 7)).toBe('n64g0s7_');
  });
});

describe('builds beside the live layout', () => {
  const userId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

  it('reindexes one shard into its next generation; writes go to both while it builds, reads to the live one', () => {
    const layout = initialLayout(4);
    const build = planBuild(layout, { kind: 'reindex', shard: 1 }, 'b1', 10);
    expect(build).toMatchObject({ shards: 4, generations: [0, 1, 0, 0], rebuild: [1], cursor: null });
    const building = { ...layout, build };
    expect(liveSet(building, userId)).toBe('n4g0s1_');
    expect(writeSets(building, userId)).toEqual(['n4g0s1_', 'n4g1s1_']);
    const switched = switchedLayout(building, build, 20);
    expect(switched).toEqual({
      shards: 4,
      generations: [0, 1, 0, 0],
      build: null,
      retired: [{ prefix: 'n4g0s1_', at: 20 }],
    });
    expect(writeSets(switched, userId)).toEqual(['n4g1s1_']);
  });

  it('reshards into M shards at a generation no live set used, and retires every old one', () => {
    const layout = { ...initialLayout(2), generations: [3, 1] };
    const build = planBuild(layout, { kind: 'reshard', shards: 3 }, 'b2', 10);
    expect(build).toMatchObject({ shards: 3, generations: [4, 4, 4], rebuild: [0, 1, 2] });
    expect(switchedLayout({ ...layout, build }, build, 5).retired.map(({ prefix }) => prefix)).toEqual([
      'n2g3s0_',
      'n2g1s1_',
    ]);
  });

  it('refuses a shard that does not exist, the same number of shards, and a count out of range', () => {
    const layout = initialLayout(4);
    expect(() => planBuild(layout, { kind: 'reindex', shard: 4 }, 'x', 0)).toThrow(LayoutError);
    expect(() => planBuild(layout, { kind: 'reshard', shards: 4 }, 'x', 0)).toThrow(/already has 4 shards/);
    expect(() => planBuild(layout, { kind: 'reshard', shards: 0 }, 'x', 0)).toThrow(/from 1 to 1024/);
  });
});
