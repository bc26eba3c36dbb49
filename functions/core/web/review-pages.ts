/**
 * The daily review's pages: Review (one highlight at a time, then the Done screen) and Settings ›
 * Review (size, time zone, favoured and muted tags, the private review feed). Pure rendering of the
 * per-user API's shapes. Rating is a form post per button, so it works without script; review.js
 * only adds the keys 1–4 and D, which press those buttons.
 */

import type {
  DailyReviewResource,
  IssuedReviewFeedResource,
  ReviewFeedStatusResource,
  ReviewSettingsResource,
} from '../review/api';
import { escapeHtml } from '../text/escape';
import { csrfField, postButton, settingsNavigation } from './layout';
import { hostOf, type PageContext, page, safeUrl, when } from './library-pages';
import { notePath, webPaths } from './paths';

/** The rating buttons in order, with the key that presses each. */
const RATINGS = [
  { rating: 'again', label: 'Again', key: '1' },
  { rating: 'hard', label: 'Hard', key: '2' },
  { rating: 'good', label: 'Good', key: '3' },
  { rating: 'easy', label: 'Easy', key: '4' },
  { rating: 'discard', label: 'Discard', key: 'D' },
] as const;

type ReviewItem = DailyReviewResource['items'][number];

function noteLinks(item: ReviewItem): string {
  const source = safeUrl(item.source_url);
  return `<p class="muted">From <a href="${notePath(item.note_id)}">${escapeHtml(item.note_title)}</a>${source ? ` · <a href="${source}" rel="noopener noreferrer">${escapeHtml(hostOf(item.source_url))}</a>` : ''}</p>`;
}

function progressLine(review: DailyReviewResource): string {
  const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  return `<p class="streak"><strong>${plural(review.streak, 'day', 'days')}</strong> in a row · <strong>${plural(review.reviews_done, 'review', 'reviews')}</strong> done</p>`;
}

function ratingForm(item: ReviewItem, csrfToken: string): string {
  const buttons = RATINGS.map(
    ({ rating, label, key }) =>
      `<button type="submit" name="rating" value="${rating}" data-key="${key.toLowerCase()}" aria-keyshortcuts="${key}"${rating === 'discard' ? ' class="secondary"' : ''}>${label} <kbd>${key}</kbd></button>`,
  ).join('\n');
  return `<form method="post" action="${webPaths.review}" class="review-rating">
${csrfField(csrfToken)}<input type="hidden" name="highlight" value="${escapeHtml(item.highlight_id)}">
<fieldset>
<legend>How well did you remember it?</legend>
${buttons}
</fieldset>
</form>
<p class="hint muted">Keys: 1 Again · 2 Hard · 3 Good · 4 Easy · D Discard (never show it again).</p>`;
}

/** Today's review: the first highlight not yet rated, or the Done screen once each is. */
export function reviewPage(context: PageContext, review: DailyReviewResource): string {
  const next = review.items.find((item) => !item.rated);
  const settingsLink = `<p><a href="${webPaths.reviewSettings}">Review settings</a></p>`;
  if (review.items.length === 0)
    return page(
      context,
      'Review',
      'review',
      `<h1>Review</h1>
<p>Nothing to review yet. Highlights come back here once you save pages with a selection.</p>
${settingsLink}`,
    );
  if (!next) {
    const done = review.items
      .map(
        (item) => `<li>
<blockquote>${escapeHtml(item.text)}</blockquote>
${noteLinks(item)}
</li>`,
      )
      .join('\n');
    return page(
      context,
      'Review done',
      'review',
      `<h1>Done for today</h1>
<section class="review-done" aria-labelledby="done-summary">
<h2 id="done-summary">Your review</h2>
${progressLine(review)}
<p>Come back tomorrow for the next ${review.items.length === 1 ? 'highlight' : 'highlights'}.</p>
</section>
<section aria-labelledby="done-highlights">
<h2 id="done-highlights">Today’s highlights</h2>
<ul class="list highlights">
${done}
</ul>
</section>
${settingsLink}`,
    );
  }
  return page(
    context,
    'Review',
    'review',
    `<h1>Review</h1>
<p class="muted">${escapeHtml(review.date)} · ${review.items.filter((item) => item.rated).length} of ${review.items.length} done</p>
<article class="review-card" aria-labelledby="review-position">
<h2 id="review-position">Highlight ${next.position} of ${review.items.length}</h2>
<blockquote>${escapeHtml(next.text)}</blockquote>
${next.comment ? `<p>${escapeHtml(next.comment)}</p>\n` : ''}${noteLinks(next)}
${ratingForm(next, context.signedIn.csrfToken)}
</article>
${settingsLink}`,
    ['review.js'],
  );
}

export interface ReviewSettingsView {
  readonly settings: ReviewSettingsResource;
  readonly feed: ReviewFeedStatusResource;
  /** The feed address just issued, shown this once. */
  readonly issued?: IssuedReviewFeedResource | null;
  /** The time zones to choose from (the runtime's IANA list). */
  readonly timeZones: readonly string[];
}

export function reviewSettingsPage(context: PageContext, view: ReviewSettingsView): string {
  const csrf = context.signedIn.csrfToken;
  const { settings, feed, issued } = view;
  const zones = [...new Set([settings.time_zone, 'UTC', ...view.timeZones])].sort();
  const zoneOptions = zones
    .map(
      (zone) =>
        `<option value="${escapeHtml(zone)}"${zone === settings.time_zone ? ' selected' : ''}>${escapeHtml(zone)}</option>`,
    )
    .join('');
  const tagField = (id: string, name: string, label: string, tags: readonly string[], hint: string) => `
<label for="${id}">${label}</label>
<input id="${id}" name="${name}" value="${escapeHtml(tags.join(', '))}" aria-describedby="${id}-hint" autocomplete="off">
<p id="${id}-hint" class="hint muted">${hint}</p>`;
  const address = issued
    ? `<div class="notice">
<label for="review-feed-url">Your review feed address</label>
<input id="review-feed-url" readonly value="${escapeHtml(issued.url)}">
<p>Copy it into your feed reader now: it is shown only this once.</p>
</div>`
    : '';
  const feedActions = feed.active
    ? `${postButton(webPaths.reviewFeed, csrf, 'Issue a new address', 'secondary', { action: 'issue' })}
${postButton(webPaths.reviewFeed, csrf, 'Revoke the address', 'secondary', { action: 'revoke' })}`
    : postButton(webPaths.reviewFeed, csrf, 'Issue an address', '', { action: 'issue' });
  return page(
    context,
    'Review settings',
    'settings',
    `<h1>Settings › Review</h1>
${settingsNavigation('review')}
<section aria-labelledby="daily-review">
<h2 id="daily-review">Daily review</h2>
<form method="post" action="${webPaths.reviewSettings}" class="stack">
${csrfField(csrf)}
<label for="review-size">Highlights a day</label>
<input id="review-size" name="size" type="number" min="3" max="15" required value="${settings.size}" aria-describedby="review-size-hint">
<p id="review-size-hint" class="hint muted">From 3 to 15.</p>
<label for="review-time-zone">Time zone</label>
<select id="review-time-zone" name="time_zone" aria-describedby="review-time-zone-hint">${zoneOptions}</select>
<p id="review-time-zone-hint" class="hint muted">A new day’s review starts at midnight here.</p>
${tagField('favoured-tags', 'favoured_tags', 'Favoured tags', settings.favoured_tags, 'Their highlights come back more often. Commas or spaces between tags.')}
${tagField('muted-tags', 'muted_tags', 'Muted tags', settings.muted_tags, 'Their highlights never come back in the review.')}
<button type="submit">Save review settings</button>
</form>
</section>
<section aria-labelledby="review-feed">
<h2 id="review-feed">Review feed</h2>
<p>A private RSS address for your feed reader: one item a day with that day’s highlights. Anyone holding the address can read it, so keep it to yourself; issue a new one (the old one stops working) or revoke it here.</p>
${address}
<p class="muted">${feed.active ? `An address is active, issued ${when(feed.issued)}.` : 'No address yet.'}</p>
${feedActions}
</section>`,
  );
}
