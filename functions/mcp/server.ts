import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Principal } from '../core/identity/principal';
import * as library from '../core/owner/library';
import { fromFetchResponse } from '../http/fetch-exchange';
import { RESOURCE_SCOPE, TOOL_SCOPES } from './access';
import { toolFailure } from './failures';
import { type DefineTool, type McpPorts, noteId, noteText, type ToolGroup, ToolRefusal, toolError } from './tool';
import { feedTools } from './tools/feeds';
import { noteTools } from './tools/notes';
import { reviewTools } from './tools/review';
import { saveTools } from './tools/save';
import { tagTools } from './tools/tags';

/**
 * Gleaner as an MCP server: the tools an assistant uses on one person's notes, and their notes as
 * `note://{id}` resources. Each tool runs one of the owner's use cases (core/owner, core/save,
 * core/search, core/review) for the principal of the request's access token, and needs one scope. A
 * failure is a tool result with `isError` and a message the assistant can act on, never a protocol
 * error. The tools are in groups, a file each (./tools).
 */

/** The tool groups, in the order clients list their tools. */
const toolGroups: readonly ToolGroup[] = [noteTools, tagTools, saveTools, feedTools, reviewTools];

/** The version of the tool interface the server reports to clients. */
const TOOLS_VERSION = '1.0.0';

/**
 * One request to the MCP server over Streamable HTTP, stateless: a server built for the principal of
 * the request's access token, answering JSON rather than streams. The handler loads this module
 * (the MCP SDK, its ajv and the tools' schemas) with `import()` when an admitted request arrives, so
 * a cold start neither runs nor parses it.
 */
export async function answerMcp(
  ports: McpPorts,
  principal: Principal,
  request: Request,
  maxRequestBodySize: number,
): Promise<APIGatewayProxyResult> {
  const server = buildMcpServer(ports, principal);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize,
  });
  await server.connect(transport);
  try {
    return await fromFetchResponse(await transport.handleRequest(request));
  } finally {
    await server.close();
  }
}

function buildMcpServer(ports: McpPorts, principal: Principal): McpServer {
  const server = new McpServer(
    { name: 'gleaner', title: 'Gleaner', version: TOOLS_VERSION },
    {
      instructions:
        'Gleaner keeps the pages this person saved, with their highlights, comments and tags. Search their notes before answering from memory, cite notes by title and URL, and ask before changing tags or publishing a note to a feed.',
    },
  );
  const { owner } = ports;

  const tool: DefineTool = (name, config, run) => {
    const scope = TOOL_SCOPES[name];
    server.registerTool(
      name,
      {
        title: config.title,
        description: `${config.description} Needs the ${scope} scope.`,
        inputSchema: config.input,
        outputSchema: config.output,
        annotations: { title: config.title, ...config.annotations },
      },
      (async (input: Parameters<typeof run>[0]): Promise<CallToolResult> => {
        if (!principal.scopes.has(scope))
          return toolError(`This connection lacks the ${scope} scope: reconnect Gleaner and allow it.`);
        try {
          const { data, text } = await run(input);
          return { structuredContent: data as Record<string, unknown>, content: [{ type: 'text', text }] };
        } catch (error) {
          return toolError(error instanceof ToolRefusal ? error.message : toolFailure(error, ports.unexpected));
        }
      }) as never,
    );
  };

  for (const group of toolGroups) group(tool, { ports, principal });

  server.registerResource(
    'note',
    new ResourceTemplate('note://{id}', { list: undefined }),
    {
      title: 'A note',
      description: 'A saved note as Markdown: its body with highlights and source line.',
      mimeType: 'text/markdown',
    },
    async (uri, { id }) => {
      if (!principal.scopes.has(RESOURCE_SCOPE))
        throw new McpError(ErrorCode.InvalidRequest, `Reading notes needs the ${RESOURCE_SCOPE} scope`);
      const parsed = noteId.safeParse(id);
      if (!parsed.success)
        throw new McpError(ErrorCode.InvalidParams, `${uri.href} names no note: the id is not a UUID`);
      try {
        const note = await library.getNote(owner, principal, parsed.data);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: noteText(note) }] };
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, toolFailure(error, ports.unexpected));
      }
    },
  );
  // Listed a page at a time (the SDK's own listing has no cursor): newest notes first.
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    if (!principal.scopes.has(RESOURCE_SCOPE))
      throw new McpError(ErrorCode.InvalidRequest, `Listing notes needs the ${RESOURCE_SCOPE} scope`);
    try {
      const cursor = request.params?.cursor;
      const page = await library.listNotes(
        owner,
        principal,
        {},
        { limit: RESOURCE_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
      );
      return {
        resources: page.notes.map((note) => ({
          uri: `note://${note.id}`,
          name: note.title,
          title: note.title,
          mimeType: 'text/markdown',
          ...(note.url ? { description: note.url } : {}),
        })),
        ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}),
      };
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, toolFailure(error, ports.unexpected));
    }
  });
  return server;
}

const RESOURCE_PAGE_SIZE = 50;
