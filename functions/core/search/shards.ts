/**
 * The search index's layout: N shards, each a set of tables (notes, recent notes, vectors per model)
 * of its own, with its own fold and indexes. A user's notes live in one shard, chosen by a stable hash
 * of the user id, so a query opens one shard. Each shard has a generation: rebuilding a shard (or
 * resharding N → M) writes a new generation beside the live one while the live one keeps answering,
 * and one atomic change of the layout switches readers and writers to it.
 */

/** A rebuild under way: the layout it is building, how far its scan of the table got. */
export interface Build {
  /** Names this build; a progress save or the switch of another build's is refused. */
  readonly id: string;
  readonly kind: 'reindex' | 'reshard';
  /** When it started (ms since the epoch). */
  readonly startedAt: number;
  /** The layout it builds. */
  readonly shards: number;
  readonly generations: readonly number[];
  /** The shards of the new layout it writes (the others stay as they are). */
  readonly rebuild: readonly number[];
  /** Where its scan of the table resumes (the table's last evaluated key), null before the first page. */
  readonly cursor: Record<string, unknown> | null;
  /** Notes scanned so far. */
  readonly scanned: number;
}

export interface Layout {
  readonly shards: number;
  /** Per shard, its live generation. */
  readonly generations: readonly number[];
  readonly build: Build | null;
  /** Table sets replaced by a switch, dropped once readers that opened them have finished. */
  readonly retired: readonly { readonly prefix: string; readonly at: number }[];
}

/** How many shards a layout may have (a table set per shard, every one folded on the schedule). */
export const MAX_SHARDS = 1024;

export class LayoutError extends Error {}

/** A user's shard among `shards`: FNV-1a of the user id, so the same user maps to the same shard on every machine and run. */
export function shardOf(userId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * The table names' prefix of one shard's generation. One shard at generation 0 keeps the names an
 * index had before shards (`notes`, `recent_notes`, `vectors_…`), so such an index needs no migration.
 */
export function tableSetPrefix(shards: number, generation: number, shard: number): string {
  return shards === 1 && generation === 0 ? '' : `n${shards}g${generation}s${shard}_`;
}

function checkShardCount(shards: number): number {
  if (!Number.isSafeInteger(shards) || shards < 1 || shards > MAX_SHARDS)
    throw new LayoutError(`the number of shards must be a whole number from 1 to ${MAX_SHARDS}`);
  return shards;
}

export function initialLayout(shards: number): Layout {
  checkShardCount(shards);
  return { shards, generations: new Array<number>(shards).fill(0), build: null, retired: [] };
}

/** The table set a user's reads go to. */
export function liveSet(layout: Layout, userId: string): string {
  const shard = shardOf(userId, layout.shards);
  return tableSetPrefix(layout.shards, layout.generations[shard]!, shard);
}

/** Every live table set. */
export function liveSets(layout: Layout): string[] {
  return layout.generations.map((generation, shard) => tableSetPrefix(layout.shards, generation, shard));
}

/** The build's table set a user's notes go to, or null when the build does not rebuild that user's shard. */
export function buildSet(build: Build, userId: string): string | null {
  const shard = shardOf(userId, build.shards);
  return build.rebuild.includes(shard) ? tableSetPrefix(build.shards, build.generations[shard]!, shard) : null;
}

/** Every table set a build writes. */
export function buildSets(build: Build): string[] {
  return build.rebuild.map((shard) => tableSetPrefix(build.shards, build.generations[shard]!, shard));
}

/**
 * Where a user's writes go: the live set, and while a build rebuilds their shard, its set too (so the
 * build misses no write made while it scans the table).
 */
export function writeSets(layout: Layout, userId: string): string[] {
  const built = layout.build ? buildSet(layout.build, userId) : null;
  return built ? [liveSet(layout, userId), built] : [liveSet(layout, userId)];
}

export type BuildRequest =
  | { readonly kind: 'reindex'; readonly shard?: number }
  | { readonly kind: 'reshard'; readonly shards: number };

/**
 * The build a request starts: a reindex gives the shard (or every shard) its next generation; a
 * reshard builds M shards, each at a generation no live set of M shards used.
 */
export function planBuild(layout: Layout, request: BuildRequest, id: string, now: number): Build {
  const base = { id, startedAt: now, cursor: null, scanned: 0 };
  if (request.kind === 'reindex') {
    const rebuild = request.shard === undefined ? layout.generations.map((_, shard) => shard) : [request.shard];
    for (const shard of rebuild)
      if (!Number.isSafeInteger(shard) || shard < 0 || shard >= layout.shards)
        throw new LayoutError(`there is no shard ${shard}: the index has ${layout.shards} (0 to ${layout.shards - 1})`);
    return {
      ...base,
      kind: 'reindex',
      shards: layout.shards,
      generations: layout.generations.map((generation, shard) =>
        rebuild.includes(shard) ? generation + 1 : generation,
      ),
      rebuild,
    };
  }
  const shards = checkShardCount(request.shards);
  if (shards === layout.shards)
    throw new LayoutError(`the index already has ${shards} shards (to rebuild them, reindex)`);
  // A generation above every live one, so no name of the live layout is reused.
  const generation = Math.max(...layout.generations) + 1;
  return {
    ...base,
    kind: 'reshard',
    shards,
    generations: new Array<number>(shards).fill(generation),
    rebuild: Array.from({ length: shards }, (_, shard) => shard),
  };
}

/** The layout after a build finished: its sets live, the ones they replace retired as of `now`. */
export function switchedLayout(layout: Layout, build: Build, now: number): Layout {
  const replaced =
    build.shards === layout.shards ? build.rebuild.map((shard) => liveSets(layout)[shard]!) : liveSets(layout);
  return {
    shards: build.shards,
    generations: build.generations,
    build: null,
    retired: [...layout.retired, ...replaced.map((prefix) => ({ prefix, at: now }))],
  };
}
