import type { Delivery } from './outbox';

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
      if (delivery.result.selection_appended) return 'Added to your note';
      return delivery.result.is_new_bookmark ? 'Saved' : 'Already saved: your note is unchanged';
    case 'queued':
      return `Queued: ${delivery.reason}. Gleaner sends it by itself.`;
    case 'held':
      return delivery.reason;
    case 'token-refused':
      return 'Your token was refused (revoked or mistyped). Paste a new one in the options; the save waits.';
    case 'dropped':
      return `Not saved: ${delivery.reason}`;
  }
}
