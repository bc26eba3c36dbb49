import type { Scope } from '../core/identity/principal';

/**
 * What an MCP call needs of its access token: apart from the server (and the MCP SDK), so the
 * handler reads it before loading them.
 */

/** The scope each tool needs; reading resources needs `notes:read`. */
export const TOOL_SCOPES = {
  search_notes: 'notes:read',
  get_note: 'notes:read',
  list_recent_notes: 'notes:read',
  list_tags: 'notes:read',
  add_tags: 'notes:write',
  remove_tags: 'notes:write',
  set_reading_state: 'notes:write',
  delete_note: 'notes:write',
  restore_note: 'notes:write',
  save_bookmark: 'notes:write',
  add_highlight: 'notes:write',
  list_feeds: 'feeds:read',
  add_note_to_feed: 'feeds:write',
  get_daily_review: 'review',
  rate_highlight: 'review',
} as const satisfies Record<string, Scope>;

export type ToolName = keyof typeof TOOL_SCOPES;

export const RESOURCE_SCOPE: Scope = 'notes:read';

/**
 * The scopes a JSON-RPC message (or batch) needs: the handler answers a token without them 403
 * `insufficient_scope`, so a client can ask the person for more (step-up authorization).
 */
export function scopesNeeded(message: unknown): Scope[] {
  const needed = (Array.isArray(message) ? message : [message]).flatMap((entry): Scope[] => {
    const { method, params } = (entry ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call' && typeof params?.name === 'string' && Object.hasOwn(TOOL_SCOPES, params.name))
      return [TOOL_SCOPES[params.name as ToolName]];
    if (method === 'resources/read' || method === 'resources/list') return [RESOURCE_SCOPE];
    return [];
  });
  return [...new Set(needed)];
}
