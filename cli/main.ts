import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { InvalidFeedSettingsError } from '../functions/core/feed-settings';
import { commands, UsageError } from './commands';
import { connect } from './connection';
import { humanReadable } from './output';

/**
 * gleaner <resource> <action> [args] [--json] [--table NAME --region REGION]
 * Operates on the running local stack by default, on a deployed table with --table/--region.
 */
const usage = `Usage: gleaner <command> [options] [--json] [--table NAME --region REGION]

Commands:
  users create --name NAME [--plan free|pro] [--note-cap N]
  tokens create --user USER_ID [--label TEXT]
  tokens revoke TOKEN_ID
  notes get NOTE_ID
  bookmarks get BOOKMARK_ID
  feeds create --user USER_ID --title TITLE --tags a,b [--description TEXT]
               [--match any|all] [--sharing public|link|private]
  feeds update FEED_ID [--title ...] [--description ...] [--tags ...] [--match ...] [--sharing ...]
  feeds list --user USER_ID
  feeds delete FEED_ID

Without --table the command talks to the local stack started by \`npm start\`
(found through GLEANER_DATA_DIR, default ./.gleaner). Feed addresses use the
local base URL, or --base-url / GLEANER_BASE_URL (the stack's BaseUrl output).

Without --json the answer is printed for people: key: value lines, or a table.
  help, --help       this text
  version, --version the version`;

/** The resources and their actions, for telling which word of a mistyped command was unknown. */
const actionsByResource = Object.keys(commands).reduce<Record<string, string[]>>((byResource, name) => {
  const [resource, action] = name.split(' ') as [string, string];
  (byResource[resource] ??= []).push(action);
  return byResource;
}, {});

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  const [resource, action, ...rest] = positionals;
  if (values.version || resource === 'version') {
    process.stdout.write(`gleaner ${packageVersion()}\n`);
    return 0;
  }
  if (values.help || resource === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (!resource) throw new UsageError('no command given');
  const command = commands[`${resource} ${action}`];
  if (!command) throw new UsageError(unknownCommand(resource, action));
  const connection = connect({ table: values.table, region: values.region, baseUrl: values['base-url'] });
  try {
    const result = await command({ options: values, args: rest, ...connection });
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${humanReadable(result)}\n`);
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
        plan: { type: 'string' },
        'note-cap': { type: 'string' },
        user: { type: 'string' },
        label: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        tags: { type: 'string' },
        match: { type: 'string' },
        sharing: { type: 'string' },
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
  return action ? `unknown command "${resource} ${action}"; ${resource} takes ${actions.join(', ')}` : `"${resource}" needs one of ${actions.join(', ')}`;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usageError = error instanceof UsageError || error instanceof InvalidFeedSettingsError;
    process.stderr.write(`gleaner: ${error instanceof Error ? error.message : String(error)}\n`);
    if (usageError) process.stderr.write(`Run \`gleaner help\` for the commands and their options.\n`);
    process.exit(usageError ? 2 : 1);
  },
);
