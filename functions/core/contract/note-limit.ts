import type { NoteLimitError } from './contract';

/**
 * The 402's detail when the account's note cap is reached (a save of a new page, or a note taken back
 * from the Trash). Apart from the contract's schemas (contract.ts): answering a 402 builds none of them.
 */
export function noteLimitDetail(used: number, limit: number): NoteLimitError['detail'] {
  return {
    code: 'note_limit',
    message: `Note limit reached: your plan allows ${limit.toLocaleString('en-US')} notes.`,
    hint: 'Delete notes you no longer need (notes in the Trash do not count), or upgrade your plan, to save new pages.',
    used,
    limit,
  };
}
