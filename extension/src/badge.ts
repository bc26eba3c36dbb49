import type { OutboxState } from './queue';

/**
 * The toolbar badge tells the state of saves: a count of saves pending (waiting or on their way), !
 * when something needs the person (token refused, note cap, set aside, setup), and for a few seconds
 * after a save left the outbox, ✓ saved or ✕ refused.
 */
export type BadgeLook = { readonly text: string; readonly color: string; readonly title: string };

/** What just happened, shown for a few seconds once nothing is pending. */
export type BadgeFlash = { readonly kind: 'saved' } | { readonly kind: 'refused'; readonly reason: string } | null;

const COLORS = { saved: '#188038', pending: '#b06000', attention: '#c5221f' } as const;

export function badgeFor(state: OutboxState, flash: BadgeFlash): BadgeLook {
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
      color: COLORS.pending,
      title: `Gleaner: ${plural(waiting)} pending; each is confirmed by itself when the server answers.`,
    };
  if (flash?.kind === 'saved') return { text: '✓', color: COLORS.saved, title: 'Gleaner: saved' };
  if (flash?.kind === 'refused')
    return { text: '✕', color: COLORS.attention, title: `Gleaner refused a save: ${flash.reason}` };
  return { text: '', color: COLORS.saved, title: 'Save to Gleaner' };
}

const plural = (count: number) => `${count} save${count === 1 ? '' : 's'}`;
