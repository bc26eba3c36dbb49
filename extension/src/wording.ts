import {
  type Delivery,
  NO_ANSWER,
  type OutboxItem,
  type OutboxState,
  pageKey,
  type SettledSave,
  waitingReason,
} from './queue';

/**
 * What the extension says about saves, in the popup and in notifications: decided here, apart from the
 * browser APIs that show it, and unit-tested.
 */

/** A notification the worker shows. */
export interface NotificationText {
  /** `attention…` ids open the options page when clicked. */
  readonly id: string;
  readonly title: string;
  readonly message: string;
}

/** What to tell the person about a save made without the popup, or null when the badge says enough. */
export function notificationFor(delivery: Delivery): NotificationText | null {
  const title = delivery.item.request.title ?? delivery.item.request.url;
  switch (delivery.kind) {
    case 'token-refused':
      return {
        id: 'attention-token',
        title: 'Gleaner refused your token',
        message: `${deliveryMessage(delivery)} Click to open the options.`,
      };
    case 'held':
      return { id: `attention-held-${delivery.item.id}`, title: `Not saved yet: ${title}`, message: delivery.reason };
    case 'dropped':
      // The reason already names the field ("url: URL should have at most 2048 characters").
      return { id: `dropped-${delivery.item.id}`, title: `Gleaner refused a save: ${title}`, message: delivery.reason };
    case 'saved':
    case 'queued':
      return null;
  }
}

/** A save that failed inside the extension (its storage, a browser API): said, never dropped silently. */
export function failureNotification(what: string, error: unknown): NotificationText {
  return { id: `failed-${Date.now()}`, title: `Gleaner could not save ${what}`, message: failureMessage(error) };
}

/** Words for an error thrown inside the extension; a full `chrome.storage.local` is named as such. */
export function failureMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (/quota/i.test(text))
    return `The browser’s storage for Gleaner is full, so the save could not be kept for sending (${text}). Free space or discard waiting saves.`;
  return text || 'An unknown error inside the extension';
}

/** The popup's and notifications' words for what became of a save. */
export function deliveryMessage(delivery: Delivery): string {
  switch (delivery.kind) {
    case 'saved':
      return outcomeMessage(delivery);
    case 'queued':
      return queuedMessage(delivery.reason);
    case 'held':
      return delivery.reason;
    case 'token-refused':
      return 'Your token was refused (revoked or mistyped). Paste a new one in the options; the save waits.';
    case 'dropped':
      return outcomeMessage(delivery);
  }
}

function outcomeMessage(outcome: SettledSave['outcome']): string {
  if (outcome.kind === 'dropped') return `Not saved: ${outcome.reason}`;
  if (outcome.result.selection_appended) return 'Added to your note';
  return outcome.result.is_new_bookmark ? 'Saved' : 'Already saved: your note is unchanged';
}

function queuedMessage(reason: string): string {
  return reason === NO_ANSWER ? NO_ANSWER : `Queued: ${reason}. Gleaner sends it by itself.`;
}

/** A line of the popup: its words and its tone (`ok`, `warn`, `bad`, or none while saving). */
export interface StatusLine {
  readonly text: string;
  readonly tone: '' | 'ok' | 'warn' | 'bad';
}

/**
 * What the popup says about one save, from the stored outbox: waiting (and why), on its way, or what
 * became of it once it left. Null when the outbox no longer knows it.
 */
export function saveStatus(state: OutboxState, id: string): StatusLine | null {
  const item = state.items.find((candidate) => candidate.id === id);
  if (item) {
    if (state.tokenRefused) return { text: deliveryMessage({ kind: 'token-refused', item }), tone: 'bad' };
    if (item.held) return { text: item.problem ?? 'Waiting for you', tone: 'bad' };
    if (!item.problem) return { text: 'Saving…', tone: '' };
    return { text: queuedMessage(item.problem), tone: 'warn' };
  }
  const settled = state.settled?.find((candidate) => candidate.id === id);
  if (!settled) return null;
  return { text: outcomeMessage(settled.outcome), tone: settled.outcome.kind === 'saved' ? 'ok' : 'bad' };
}

/** How long after a waiting save was settled a popup opened over its page still tells what became of it. */
const SETTLED_SHOWN_MS = 60 * 60_000;

/**
 * The save a popup opened over a page tells about: the latest save of that page still in the outbox,
 * or the latest that had to wait and was settled in the last hour. Null when there is none.
 */
export function lastSaveOf(state: OutboxState, url: string, now: number): string | null {
  const page = pageKey(url);
  const waiting = state.items.filter((item) => pageKey(item.request.url) === page).at(-1);
  if (waiting) return waiting.id;
  const settled = (state.settled ?? []).filter(
    (save) => save.waited && pageKey(save.url) === page && now - save.at < SETTLED_SHOWN_MS,
  );
  return settled.at(-1)?.id ?? null;
}

/** Why a save in the popup's list of waiting saves is there. */
export function queueEntryText(state: OutboxState, item: OutboxItem, now: number): string {
  if (item.sendingSince && !item.problem) return 'Sending…';
  return waitingReason(state, item, now);
}
