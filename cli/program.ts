import { parseArgs } from 'node:util';
import { InvalidFeedSettingsError } from '../functions/core/feed/settings';
import { TRASH_RETENTION_DAYS } from '../functions/core/model';
import { LayoutError } from '../functions/core/search/shards';
import { DEFAULT_ROTATION_GRACE } from '../functions/core/token/lifecycle';
import { DEFAULT_PAGE_SIZE, InvalidCursorError, MAX_PAGE_SIZE } from '../functions/core/workspace/listing';
import packageJson from '../package.json' with { type: 'json' };
import { type CliOutput, commands, DocumentOutput, UsageError } from './commands';
import { connect } from './connection';
import { commandList, helpFor } from './help';
import { humanReadable } from './output';

/**
 * gleaner <resource> <action> [args] [--json] [--table NAME --region REGION]
 * Operates on the running local stack by default, on a deployed table with --table/--region.
 */
const usage = `Usage: gleaner <command> [options] [--json] [--table NAME --region REGION]

Commands:
${commandList}

Without --table the command talks to the local stack started by \`npm start\`
(found through GLEANER_DATA_DIR, default ./.gleaner). Feed addresses use the
local base URL, or --base-url / GLEANER_BASE_URL (the stack's BaseUrl output).

Every list is newest first: users, tokens and feeds by creation, notes and bookmarks by last
update. Users, notes and bookmarks come ${DEFAULT_PAGE_SIZE} a page unless --limit says otherwise (at most ${MAX_PAGE_SIZE});
a cursor is printed when another page follows: pass it as --cursor to read that page.
Ids are the UUIDs the create commands print. Durations are a number and m, h or d (30m, 24h, 90d).
A rotated token keeps working for the grace period (default ${DEFAULT_ROTATION_GRACE}), then is refused;
the new one has the same label and lifetime (or the one --expires-in gives).
A feed is created private: its addresses answer 404 until --sharing link (anyone with the link)
or public. \`feeds create\`, \`get\` and \`list\` print its page, RSS, Atom, JSON Feed and JSON addresses.
A changed --plan brings that plan's note cap unless --note-cap is given too.
\`notes delete\` moves a note to the Trash, as the web app and the API do: out of every list, search and feed,
and out of the note cap, for ${TRASH_RETENTION_DAYS} days, then deleted for good; \`notes restore\` takes it back, and
\`notes delete --forever\` deletes it for good at once, with its bookmark, highlights and kept page.
\`migrate\` runs every migration, each safe to run again (a stopped run is finished by running it again),
then indexes for search the notes the index lacks.
\`search\` takes the query language of docs/search.md (words, "phrases", prefix*, #tag, -word, site:,
after:/before:YYYY-MM-DD, has:highlight, is:archived|starred|unread, a pasted URL); answers say which mode ran and why.
With --table, name the search index with --search-index URI (the stack's SearchIndexUri output).

Without --json the answer is printed for people: key: value lines, or a table (a note's
body cut to its first line there). With --json, stdout is exactly one JSON object.

\`gleaner <command> --help\` prints that command's own help.

Exit status: 0 done; 1 failed: an id that names nothing, a file that cannot be read, a token
revoked already, no running stack, a database error; 2 a usage mistake or an invalid value
(an unknown command or option, a missing option, a malformed id, duration, cursor or file).
  help, --help       this text
  version, --version the version`;

/** The resources and their actions (none for one-word commands), for telling which word of a mistyped command was unknown. */
const actionsByResource = Object.keys(commands).reduce<Record<string, string[]>>((byResource, name) => {
  const [resource, action] = name.split(' ') as [string, string | undefined];
  byResource[resource] ??= [];
  if (action) byResource[resource].push(action);
  return byResource;
}, {});

/** What a run of the CLI reads and writes: the process's own streams and environment, or a test's. */
export interface CliStreams {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Runs one `gleaner` command line and answers its exit status: 0 done, 2 a usage mistake or an
 * invalid value, 1 every other failure (a missing thing, I/O), with the reason on stderr.
 */
export async function runGleaner(argv: string[], io: CliStreams): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    const usageError =
      error instanceof UsageError ||
      error instanceof InvalidFeedSettingsError ||
      error instanceof InvalidCursorError ||
      error instanceof LayoutError;
    io.stderr.write(`gleaner: ${error instanceof Error ? error.message : String(error)}\n`);
    if (usageError) io.stderr.write(`Run \`gleaner help\` for the commands and their options.\n`);
    return usageError ? 2 : 1;
  }
}

async function run(argv: string[], { stdout, stderr, env }: CliStreams): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  const [resource, action, ...rest] = positionals;
  if (values.version || resource === 'version') {
    stdout.write(`gleaner ${packageJson.version}\n`);
    return 0;
  }
  if (values.help || resource === 'help') {
    const words = resource === 'help' ? [action, ...rest] : positionals;
    stdout.write(words[0] === undefined ? `${usage}\n` : (helpFor(words as string[]) ?? `${usage}\n`));
    return 0;
  }
  if (!resource) throw new UsageError('no command given');
  const oneWord = commands[resource];
  const command = oneWord ?? commands[`${resource} ${action}`];
  if (!command) throw new UsageError(unknownCommand(resource, action));
  const args = oneWord ? [action, ...rest].filter((arg): arg is string => arg !== undefined) : rest;
  const connection = connect(
    { table: values.table, region: values.region, baseUrl: values['base-url'], searchIndex: values['search-index'] },
    env,
    stderr,
  );
  try {
    const result = await command({ options: values, args, stderr, ...connection });
    if (result instanceof DocumentOutput) stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : result.text);
    else stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${humanReadable(result)}\n`);
    return 0;
  } finally {
    connection.close();
  }
}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        table: { type: 'string' },
        region: { type: 'string' },
        'base-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
        name: { type: 'string' },
        email: { type: 'string' },
        plan: { type: 'string' },
        'note-cap': { type: 'string' },
        user: { type: 'string' },
        label: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        tags: { type: 'string' },
        match: { type: 'string' },
        sharing: { type: 'string' },
        items: { type: 'string' },
        tag: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        'expires-in': { type: 'string' },
        grace: { type: 'string' },
        format: { type: 'string' },
        mode: { type: 'string' },
        'search-index': { type: 'string' },
        shard: { type: 'string' },
        shards: { type: 'string' },
        resume: { type: 'boolean', default: false },
        forever: { type: 'boolean', default: false },
        trash: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    // node:util's own wording explains parseArgs, not this command.
    const option = /'(-[^' ]+)/.exec(String((error as Error).message))?.[1];
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${option}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`${option} needs a value`);
    throw error;
  }
}

function unknownCommand(resource: string, action: string | undefined): string {
  const actions = actionsByResource[resource];
  if (!actions) return `unknown command "${resource}"; the commands are ${Object.keys(actionsByResource).join(', ')}`;
  return action
    ? `unknown command "${resource} ${action}"; ${resource} takes ${actions.join(', ')}`
    : `"${resource}" needs one of ${actions.join(', ')}`;
}
