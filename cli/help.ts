import { TRASH_RETENTION_DAYS } from '../functions/core/model';
import { DEFAULT_ROTATION_GRACE } from '../functions/core/token/lifecycle';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../functions/core/workspace/listing';

/** One command's line in the list of commands, and what `gleaner <command> --help` adds to it. */
interface CommandHelp {
  readonly usage: string;
  readonly about: string;
}

const paging = `Newest first, ${DEFAULT_PAGE_SIZE} a page unless --limit says otherwise (at most ${MAX_PAGE_SIZE}); a cursor is
printed when another page follows: pass it as --cursor to read that page.`;
const privateFeed = `A feed is created private: its addresses answer 404 until --sharing link (anyone with the
link) or public. Prints the feed's page, RSS, Atom, JSON Feed and JSON addresses.`;
const feedOptions = `--tags a,b          the tags whose notes the feed lists (at least one)
--match any|all     a note needs any of the tags (default) or all of them
--sharing public|link|private
--items notes|highlights   a whole note per entry, or each highlight`;

/** Every command, in the order `gleaner help` lists them. */
export const commandHelp: Record<string, CommandHelp> = {
  'users create': {
    usage: '--name NAME [--plan free|pro] [--note-cap N]',
    about: 'Creates a user. The plan brings its note cap (1,000 free, 1,000,000 pro) unless --note-cap is given.',
  },
  'users list': { usage: '[--limit N] [--cursor C]', about: `Lists the users. ${paging}` },
  'users update': {
    usage: 'USER_ID [--plan free|pro] [--note-cap N]',
    about:
      "Changes a user's plan or note cap. A changed --plan brings that plan's note cap unless --note-cap\nis given too.",
  },
  'users invite': {
    usage: 'USER_ID --email ADDRESS',
    about: `Adds a login by email to a user the CLI created, and mails a one-time link (valid 7 days) that
sets its password. The link is printed too; the mail notice goes to stderr, so with --json stdout
is the answer alone. Needs --base-url against a deployed table (the link points at the web app).`,
  },
  'tokens create': {
    usage: '--user USER_ID [--label TEXT] [--expires-in 90d]',
    about: 'Mints a personal access token for saving; this is the only time it is shown.',
  },
  'tokens list': {
    usage: '--user USER_ID',
    about: "Lists a user's tokens (label, creation, expiry, revocation, last use), never the tokens.",
  },
  'tokens rotate': {
    usage: 'TOKEN_ID [--grace 24h] [--expires-in 90d]',
    about: `Mints a new token with the old one's label and lifetime (or the one --expires-in gives). The
old one keeps working for the grace period (default ${DEFAULT_ROTATION_GRACE}), then is refused.`,
  },
  'tokens revoke': { usage: 'TOKEN_ID', about: 'Revokes a token: it is refused from now on.' },
  'notes get': { usage: 'NOTE_ID', about: 'Prints a note whole: its bookmark, body and tags.' },
  'notes list': {
    usage: '--user USER_ID [--tag TAG | --trash] [--limit N] [--cursor C]',
    about: `Lists a user's notes, by last update; with --trash, the notes in their Trash, most recently
deleted first. ${paging}`,
  },
  'notes delete': {
    usage: 'NOTE_ID [--forever]',
    about: `Moves a note to the Trash, as the web app and the API do: it leaves every list, search, feed,
link and review, frees its place under the note cap, and is deleted for good ${TRASH_RETENTION_DAYS} days later.
Prints when it went and when it goes. --forever deletes it for good at once (in the Trash or not),
with its bookmark, highlights and kept page.`,
  },
  'notes restore': {
    usage: 'NOTE_ID',
    about: `Takes a note out of the Trash, back as it was (tags, highlights, reading state); refused when
its user is at the note cap. Prints the note.`,
  },
  'bookmarks get': { usage: 'BOOKMARK_ID', about: 'Prints a bookmark as the save contract shows it.' },
  'bookmarks list': {
    usage: '--user USER_ID [--tag TAG] [--limit N] [--cursor C]',
    about: `Lists a user's bookmarks, by last update. ${paging}`,
  },
  import: {
    usage: '--user USER_ID FILE... [--json]',
    about: `Imports an export of Pocket (its zip or ril_export.html), Omnivore, Instapaper, Readwise (the
documents and highlights CSVs together), Raindrop, Karakeep, Linkwarden, Wallabag or Hypothesis, a
browser's bookmark file, or Gleaner's own export: a zip or the files in it (docs/import.md). Prints
what it imported, merged and skipped (every skipped row with its reason); --json prints {format, rows,
imported, merged, highlights, skipped:[{row, reason}]}. A file of no known format exits 2. Stops at the
note cap, saying how many links were left out; running it again picks up where it stopped.`,
  },
  export: {
    usage: '--user USER_ID [--format netscape|json]',
    about: "Writes every bookmark with its whole note, oldest first: a bookmark file, or Gleaner's JSON.",
  },
  'feeds create': {
    usage:
      '--user USER_ID --title TITLE --tags a,b [--description TEXT]\n  [--match any|all] [--sharing public|link|private] [--items notes|highlights]',
    about: `Creates a published feed of a user's notes with the given tags.\n${feedOptions}\n${privateFeed}`,
  },
  'feeds get': { usage: 'FEED_ID', about: "Prints a feed's settings and its addresses." },
  'feeds update': {
    usage: 'FEED_ID [--title ...] [--description ...] [--tags ...] [--match ...] [--sharing ...] [--items ...]',
    about: `Changes a feed's settings; give at least one.\n${feedOptions}`,
  },
  'feeds list': { usage: '--user USER_ID', about: "Lists a user's feeds, newest first, with their addresses." },
  'feeds delete': { usage: 'FEED_ID', about: 'Deletes a feed: its addresses answer 404 from now on.' },
  search: {
    usage: '--user USER_ID "QUERY" [--mode keyword|semantic|hybrid] [--limit N] [--cursor C]',
    about: `Searches a user's notes with the query language of docs/search.md (words, "phrases", prefix*,
#tag, -word, site:, after:/before:YYYY-MM-DD, has:highlight, a pasted URL); the answer says which
mode ran and why. With --table, name the search index with --search-index URI (the stack's
SearchIndexUri output).`,
  },
  reindex: {
    usage: '[--user USER_ID | --shard K | --shards M] [--resume]',
    about: `Rebuilds the search index from the table while it keeps answering; prints how many notes it
indexed. --user rewrites one user's notes in place; otherwise every shard (or shard K) is built beside
the live one and swapped in at the end; --shards M reshards the index into M shards the same way. Only
one rebuild runs at a time (a second is refused); --resume continues one whose process stopped.
With --table, name the index with --search-index URI.`,
  },
  migrate: {
    usage: '',
    about: `After an upgrade: runs every migration, each safe to run again (a stopped run is finished by
running it again), then indexes for search the notes the index lacks.`,
  },
};

const commandLine = (name: string) => `gleaner ${name}${commandHelp[name]?.usage ? ` ${commandHelp[name].usage}` : ''}`;

/** The commands' lines, indented as the global help lists them. */
export const commandList = Object.keys(commandHelp)
  .map((name) => `  ${commandLine(name).slice('gleaner '.length).replace(/\n/g, '\n    ')}`)
  .join('\n');

/**
 * What `gleaner <command> --help` prints: the command's own usage and what it does, or for a
 * resource (`gleaner feeds --help`) the lines of its commands; null for a word that names none.
 */
export function helpFor(words: string[]): string | null {
  const [resource, action] = words;
  const name = [resource, action].filter(Boolean).join(' ');
  const help = commandHelp[name] ?? (action ? commandHelp[resource ?? ''] : undefined);
  const options =
    'Options every command takes: --json (one JSON object on stdout), --table NAME --region REGION\n(a deployed table instead of the local stack), --base-url URL.';
  if (help) {
    const own = commandHelp[name] ? name : (resource ?? '');
    return `Usage: ${commandLine(own)}\n\n${help.about}\n\n${options}\n`;
  }
  const ofResource = Object.keys(commandHelp).filter((command) => command.startsWith(`${resource} `));
  if (ofResource.length === 0) return null;
  return `Usage:\n${ofResource.map((command) => `  ${commandLine(command).replace(/\n/g, '\n    ')}`).join('\n')}\n\nRun \`gleaner ${resource} <command> --help\` for one of them.\n`;
}
