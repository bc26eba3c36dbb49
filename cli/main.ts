import { parseArgs } from 'node:util';
import { connect } from './connection';
import { commands, UsageError } from './commands';

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
  feeds create --user USER_ID --title TITLE [--description TEXT] [--tags a,b]
               [--match any|all] [--sharing public|link|private]
  feeds update FEED_ID [--title ...] [--description ...] [--tags ...] [--match ...] [--sharing ...]
  feeds list --user USER_ID
  feeds delete FEED_ID

Without --table the command talks to the local stack started by \`npm start\`
(found through GLEANER_DATA_DIR, default ./.gleaner). Feed addresses use the
local base URL, or --base-url / GLEANER_BASE_URL (the stack's BaseUrl output).`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      table: { type: 'string' },
      region: { type: 'string' },
      'base-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
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
  const [resource, action, ...rest] = positionals;
  const command = commands[`${resource} ${action}`];
  if (values.help || !command) {
    (values.help ? process.stdout : process.stderr).write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const connection = connect({ table: values.table, region: values.region, baseUrl: values['base-url'] });
  try {
    const result = await command({ options: values, args: rest, ...connection });
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${humanReadable(result)}\n`);
    return 0;
  } finally {
    connection.close();
  }
}

function humanReadable(result: Record<string, unknown>): string {
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`gleaner: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof UsageError) process.stderr.write(`\n${usage}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
