import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { core } from 'zod/mini';
import * as z from 'zod/mini';
import type { Principal } from '../core/identity/principal';
import { MAX_TAGS_PER_NOTE } from '../core/model';
import type { noteSchema, noteSummarySchema } from '../core/owner/api';
import type { OwnerPorts } from '../core/owner/library';
import type { ReviewPorts } from '../core/review/use-cases';
import { TAG_MAX_LENGTH } from '../core/save/hashtags';
import type { SaveBookmarkPorts } from '../core/save/save-bookmark';
import type { SearchPorts } from '../core/search/search';
import type { ToolName } from './access';

/**
 * What every tool group shares: the ports the tools run the owner's use cases on, the way a group
 * registers a tool, the annotations and input atoms the tools repeat, and their text renderings.
 */

export interface McpPorts {
  readonly owner: OwnerPorts;
  readonly save: SaveBookmarkPorts;
  /** The search index, opened on first use: only search needs it. */
  readonly search: () => Promise<SearchPorts>;
  readonly review: ReviewPorts;
  /** What the client is told of a failure no use case expects (the handler logs it, and says when a temporary fault passes). */
  readonly unexpected: (error: unknown) => string;
}

interface ToolConfig<Input extends core.$ZodShape, Output extends z.ZodMiniObject> {
  readonly title: string;
  readonly description: string;
  readonly input: Input;
  readonly output: Output;
  readonly annotations: ToolAnnotations;
}

/** Registers a tool that runs only with its scope, and whose failures become tool errors. */
export type DefineTool = <Input extends core.$ZodShape, Output extends z.ZodMiniObject>(
  name: ToolName,
  config: ToolConfig<Input, Output>,
  run: (input: z.infer<z.ZodMiniObject<Input>>) => Promise<{ data: z.infer<Output>; text: string }>,
) => void;

/** What a tool group's tools run with: the ports and the principal of the request's access token. */
interface ToolContext {
  readonly ports: McpPorts;
  readonly principal: Principal;
}

/** A tool group: registers its tools. */
export type ToolGroup = (tool: DefineTool, context: ToolContext) => void;

/** A use case's refusal the client can act on, as a tool error. */
export class ToolRefusal extends Error {}

export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const ADDITIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const noteId = z.guid();
export const tag = z.string().check(z.minLength(1), z.maxLength(TAG_MAX_LENGTH));
export const tags = z.array(tag).check(z.minLength(1), z.maxLength(MAX_TAGS_PER_NOTE));
export const optionalText = (max: number) => z.optional(z.string().check(z.maxLength(max)));

export function tagsText(names: readonly string[]): string {
  return names.map((name) => `#${name}`).join(' ') || 'none';
}

/** `in the inbox` / `archived`, and `starred` when it is. */
export function stateText(note: Pick<z.infer<typeof noteSummarySchema>, 'archived' | 'starred'>): string {
  return `${note.archived ? 'archived' : 'in the inbox'}${note.starred ? ', starred' : ''}`;
}

export function summaryText(note: z.infer<typeof noteSummarySchema>): string {
  return `${note.title}${note.url ? ` <${note.url}>` : ''} (note ${note.id}, ${note.updated ?? note.created}, ${stateText(note)})${note.tags.length ? ` ${tagsText(note.tags)}` : ''}`;
}

export function noteText(note: z.infer<typeof noteSchema>): string {
  return [
    `# ${note.title}`,
    ...(note.url ? [`Source: ${note.url}`] : []),
    `Tags: ${tagsText(note.tags)}`,
    `State: ${stateText(note)}`,
    ...(note.comment ? [`Comment: ${note.comment}`] : []),
    '',
    note.body,
  ].join('\n');
}
