import * as z from 'zod/mini';
import { dailyReviewSchema, ratingResultSchema } from '../../core/review/api';
import { REVIEW_RATINGS } from '../../core/review/card';
import { getDailyReview, rateHighlight } from '../../core/review/use-cases';
import { READ_ONLY, type ToolGroup } from '../tool';

/** The daily review: today's highlights, and rating one. */
export const reviewTools: ToolGroup = (tool, { ports, principal }) => {
  const { owner } = ports;
  tool(
    'get_daily_review',
    {
      title: "Today's review",
      description:
        "Today's daily review (in the person's time zone): a few highlights to look at again, each with its note and why it was picked, the streak and whether the day is done. Rate each with rate_highlight.",
      input: {},
      output: dailyReviewSchema,
      annotations: READ_ONLY,
    },
    async () => {
      const review = await getDailyReview(ports.review, principal, owner.now());
      const lines = review.items.map(
        (item) =>
          `${item.position}. “${item.text}”${item.comment ? ` (${item.comment})` : ''}\n   from ${item.note_title}${item.source_url ? ` <${item.source_url}>` : ''}; highlight ${item.highlight_id}${item.rated ? ', rated' : ''}`,
      );
      const heading = `Review of ${review.date}: ${review.items.length} highlight${review.items.length === 1 ? '' : 's'}${review.completed ? ', all rated' : ''}; streak ${review.streak} day${review.streak === 1 ? '' : 's'}.`;
      return { data: review, text: [heading, ...lines].join('\n') };
    },
  );

  tool(
    'rate_highlight',
    {
      title: 'Rate a highlight',
      description:
        'Rates how well the person remembered a highlight (again, hard, good, easy), which schedules its next review; discard takes it out of reviews for good.',
      input: { highlight_id: z.guid(), rating: z.enum(REVIEW_RATINGS) },
      output: ratingResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ highlight_id, rating }) => {
      const rated = await rateHighlight(ports.review, principal, highlight_id, rating, owner.now());
      return {
        data: rated,
        text: rated.next_due
          ? `Rated ${rating}: next review ${rated.next_due.slice(0, 10)}. Streak ${rated.streak}.`
          : 'Discarded: this highlight leaves the reviews.',
      };
    },
  );
};
