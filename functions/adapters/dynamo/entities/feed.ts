import * as z from 'zod/mini';
import type { FeedRecord } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/** The feed entity: its item, listed in the user's feeds index by creation, and its codec. */
export function feedItem(feed: FeedRecord) {
  return {
    ...keys.feed(feed.id),
    ...keys.userFeedsIndex(feed.userId, feed.created, feed.id),
    type: 'Feed',
    ...feed,
    tags: [...feed.tags],
  };
}

const decodeFeed = itemCodec('Feed', () =>
  z.object({
    id: z.string(),
    userId: z.string(),
    title: z.string(),
    description: z.nullish(z.string()),
    tags: z.optional(z.array(z.string())),
    match: z.enum(['any', 'all']),
    sharing: z.enum(['public', 'link', 'private']),
    items: z.optional(z.enum(['notes', 'highlights'])),
    created: z.string(),
    updated: z.string(),
  }),
);

/** A feed item as the domain's feed record; MalformedItemError when it is not one. */
export function readFeed(item: Record<string, unknown>): FeedRecord {
  const stored = decodeFeed(item);
  return {
    ...stored,
    description: stored.description ?? null,
    tags: stored.tags ?? [],
    // `notes` for records written before feeds could list highlights.
    items: stored.items ?? 'notes',
  };
}
