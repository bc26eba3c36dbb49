import { deliveryMessage } from './messages';
import type { Delivery } from './outbox';

/** The notifications the worker shows, as data: what each says is decided here and unit-tested. */
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
