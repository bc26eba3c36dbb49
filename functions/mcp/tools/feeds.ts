import * as z from 'zod/mini';
import { feedTagsText } from '../../core/feed/settings';
import { feedListSchema, noteInFeedSchema } from '../../core/owner/api';
import * as library from '../../core/owner/library';
import { ADDITIVE, noteId, READ_ONLY, type ToolGroup, tagsText } from '../tool';

/** The published feeds, and putting a note into one. */
export const feedTools: ToolGroup = (tool, { ports, principal }) => {
  const { owner } = ports;
  tool(
    'list_feeds',
    {
      title: 'List feeds',
      description:
        'The published feeds: which tags each shows, who may read it, and its addresses (page, RSS, Atom, JSON Feed).',
      input: {},
      output: feedListSchema,
      annotations: READ_ONLY,
    },
    async () => {
      const list = await library.listFeeds(owner, principal);
      const lines = list.feeds.map(
        (feed) =>
          `- ${feed.title} (feed ${feed.id}): notes tagged ${feedTagsText(feed)}, ${feed.sharing}, ${feed.page_url}`,
      );
      return { data: list, text: lines.join('\n') || 'No feeds yet.' };
    },
  );

  tool(
    'add_note_to_feed',
    {
      title: 'Publish a note in a feed',
      description:
        'Puts a note into a feed by giving it the tag(s) the feed shows (every tag of a feed that needs all, else its first), so anyone who reads the feed sees it.',
      input: { note_id: noteId, feed_id: z.guid() },
      output: noteInFeedSchema,
      annotations: ADDITIVE,
    },
    async ({ note_id, feed_id }) => {
      const { feed, note, placed } = await library.addNoteToFeed(owner, principal, note_id, feed_id);
      return {
        data: placed,
        text: placed.tags_added.length
          ? `“${note.title}” is now in the feed “${feed.title}” (added ${tagsText(placed.tags_added)}): ${feed.page_url}`
          : `“${note.title}” is in the feed “${feed.title}” already.`,
      };
    },
  );
};
