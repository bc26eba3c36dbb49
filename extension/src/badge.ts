import type { OutboxState } from './outbox';

/**
 * The toolbar badge tells the outcome of saves made without the popup: ✓ saved, a count of saves
 * queued for the server, or ! when something needs the person (token refused, note cap, setup).
 */
export type BadgeLook = { readonly text: string; readonly color: string; readonly title: string };

const COLORS = { saved: '#188038', queued: '#b06000', attention: '#c5221f' } as const;

export function badgeFor(state: OutboxState, justSaved: boolean): BadgeLook {
  const waiting = state.items.length;
  const held = state.items.find((item) => item.held);
  if (state.tokenRefused || held) {
    const why = state.tokenRefused ? 'your token was refused; paste a new one in the options' : held!.problem;
    return {
      text: '!',
      color: COLORS.attention,
      title: `Gleaner needs attention: ${why}. ${plural(waiting)} waiting.`,
    };
  }
  if (waiting)
    return {
      text: String(waiting),
      color: COLORS.queued,
      title: `Gleaner: ${plural(waiting)} queued; sent when the server answers.`,
    };
  if (justSaved) return { text: '✓', color: COLORS.saved, title: 'Gleaner: saved' };
  return { text: '', color: COLORS.saved, title: 'Save to Gleaner' };
}

const plural = (count: number) => `${count} save${count === 1 ? '' : 's'}`;
