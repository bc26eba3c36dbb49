import { randomUUID } from 'node:crypto';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { ensureTable } from '../functions/adapters/dynamo/create-table';
import { DynamoLinkStore } from '../functions/adapters/dynamo/link-store';
import { DynamoReviewStore } from '../functions/adapters/dynamo/review-store';
import type { Principal } from '../functions/core/identity/principal';
import type { Bookmark, Highlight, Note } from '../functions/core/model';
import type { OwnerPorts } from '../functions/core/owner/library';
import * as library from '../functions/core/owner/library';
import type { ReviewCard } from '../functions/core/review/card';
import { buildDailyReview, type ReviewCandidate } from '../functions/core/review/daily';
import { rateCard } from '../functions/core/review/schedule';
import { DEFAULT_REVIEW_SETTINGS } from '../functions/core/review/settings';
import { ownerDeps } from '../functions/http/owner-deps';
import { feedAddresses } from '../functions/http/published-feed';
import { settings as handlerSettings } from '../functions/platform/settings';
import { startDynamoDbLocal } from '../local/dynamodb-local';

/**
 * The daily review and backlinks at size: a day's review built for a user with 10,000 highlights
 * (in 2,000 notes, 1,000 of them rated before), by the pure builder and by the store over DynamoDB
 * Local (every highlight, note and card read, the day written); and a note that 500 notes link
 * to, read whole with its links and backlinks as the per-user API reads it.
 */

const HIGHLIGHTS = 10_000;
const PER_NOTE = 5;
/** Rated one after another, as a reviewer does (parallel ratings of one user contend for its progress item). */
const RATED = 1_000;
const INCOMING_LINKS = 500;
/** Writes in flight while the fixture is written. */
const CONCURRENCY = 8;

type Row = (name: string, value: string) => void;

const quantile = (values: readonly number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const p50p95 = (times: readonly number[]) => `${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.95))}`;

async function timed(runs: number, call: (run: number) => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await call(run);
    times.push(performance.now() - started);
  }
  return times;
}

async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

function page(userId: string, index: number, comment: string, title = `Page ${index}`) {
  const now = new Date(Date.UTC(2025, 0, 1) + index * 3_600_000).toISOString();
  const bookmarkId = randomUUID();
  const noteId = randomUUID();
  const url = `https://example.com/bench/${index}`;
  const bookmark: Bookmark = {
    id: bookmarkId,
    userId,
    noteId,
    title,
    url,
    normalizedUrl: url,
    icon: null,
    created: now,
    updated: now,
  };
  const note: Note = {
    id: noteId,
    userId,
    bookmarkId,
    url,
    title,
    body: comment,
    tags: index % 10 === 0 ? ['favoured'] : ['bench'],
    lastHighlight: null,
    created: now,
    updated: now,
    version: 1,
  };
  return { bookmark, note };
}

export async function reviewAndLinks(row: Row): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
  const tableName = `bench-review-${randomUUID()}`;
  try {
    await ensureTable(client, tableName);
    const accounts = new DynamoAccountStore(doc, tableName);
    const bookmarks = new DynamoBookmarkStore(doc, tableName);
    const userId = randomUUID();
    await accounts.createUser({
      id: userId,
      name: 'Bench',
      displayName: 'Bench',
      plan: 'pro',
      noteCap: 1_000_000,
      noteCount: 0,
      created: new Date().toISOString(),
    });

    // ---- A day's review at 10,000 highlights
    const candidates: ReviewCandidate[] = [];
    const pages = Array.from({ length: HIGHLIGHTS / PER_NOTE }, (_, index) => page(userId, index, ''));
    await inParallel(pages, ({ bookmark, note }) => {
      const highlights: Highlight[] = Array.from({ length: PER_NOTE }, (_, n) => ({
        id: randomUUID(),
        noteId: note.id,
        userId,
        quote: `Quote ${n} of ${note.title}, long enough to stand for a real highlight of a sentence or two.`,
        comment: null,
        saved: note.created,
      }));
      for (const highlight of highlights)
        candidates.push({ highlightId: highlight.id, noteId: note.id, saved: highlight.saved, tags: note.tags });
      return bookmarks.createBookmark(bookmark, note, null, null, highlights);
    });
    const review = new DynamoReviewStore(doc, tableName);
    const ratedAt = new Date('2026-01-01T09:00:00Z');
    const cards = new Map<string, ReviewCard>();
    for (const { highlightId } of candidates.slice(0, RATED)) {
      cards.set(highlightId, rateCard(null, 'good', ratedAt, { userId, highlightId }).card);
      await review.rate(userId, highlightId, 'good', ratedAt);
    }

    const day = (run: number) => new Date(Date.UTC(2026, 2, 1 + run, 12));
    const settings = { ...DEFAULT_REVIEW_SETTINGS, favouredTags: ['favoured'] };
    const pure = await timed(50, (run) =>
      buildDailyReview({ userId, now: day(run), settings, highlights: candidates, cards }),
    );
    row(`daily review, ${HIGHLIGHTS} highlights, builder p50 / p95`, p50p95(pure));
    // Each run is a new day, so each builds (reads everything) and stores its review.
    const stored = await timed(15, (run) => review.reviewDay(userId, day(run)));
    row(`daily review, ${HIGHLIGHTS} highlights, store (first read of a day) p50 / p95`, p50p95(stored));
    const again = await timed(30, () => review.reviewDay(userId, day(0)));
    row('daily review, later reads of the day p50 / p95', p50p95(again));

    // ---- Backlinks of a note with 500 incoming links
    const links = new DynamoLinkStore(doc, tableName);
    const target = page(userId, 1_000_000, '', 'Much linked');
    await bookmarks.createBookmark(target.bookmark, target.note, null, null);
    const sources = Array.from({ length: INCOMING_LINKS }, (_, index) =>
      page(userId, 2_000_000 + index, `Source ${index} builds on [[Much linked]] in a sentence of its own.`),
    );
    await inParallel(sources, async ({ bookmark, note }) => {
      await bookmarks.createBookmark(bookmark, note, null, null);
      await links.syncNote(note);
    });
    await links.syncNote(target.note);
    // Read as `GET /api/v2/me/notes/{id}` reads it: the owner API's own ports and core (note, icon,
    // highlights, outgoing links and backlinks), without the HTTP and authentication around it.
    const owner = ownerDeps({
      [handlerSettings.tableName.name]: tableName,
      [handlerSettings.dynamoEndpoint.name]: dynamo.endpoint,
    });
    const ports: OwnerPorts = { ...owner.deps, feedLinks: (feedId) => feedAddresses('http://bench.test', feedId) };
    const principal: Principal = { userId, via: 'session', scopes: new Set() };
    const read = await library.getNote(ports, principal, target.note.id);
    if (read.backlinks.length !== INCOMING_LINKS)
      throw new Error(`expected ${INCOMING_LINKS} backlinks, found ${read.backlinks.length}`);
    const backlinks = await timed(20, () => library.getNote(ports, principal, target.note.id));
    row(`note with ${INCOMING_LINKS} backlinks, as GET /api/v2/me/notes/{id} reads it p50 / p95`, p50p95(backlinks));
  } finally {
    client.destroy();
    await dynamo.stop();
  }
}
