import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../cli/commands';
import { commandHelp } from '../../cli/help';
import { writeLocalState } from '../../local/state';
import { gleanerInProcess as gleaner } from '../support/cli';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { gleaner as gleanerProcess, repositoryRoot } from '../support/processes';

let t: TestStack;
let env: Record<string, string>;
/** A well-formed id, for the usage mistakes found before any id is looked up. */
const someId = '00000000-0000-4000-8000-000000000000';
const parse = (stdout: string) => JSON.parse(stdout);

beforeAll(async () => {
  t = await startTestStack();
  const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-cli-'));
  writeLocalState(dataDir, {
    pid: process.pid,
    baseUrl: t.stack.baseUrl,
    dynamoEndpoint: t.table.endpoint,
    tableName: t.table.tableName,
  });
  env = { GLEANER_DATA_DIR: dataDir };
  return () => rmSync(dataDir, { recursive: true, force: true });
});
afterAll(() => t.stop());

// The commands run in this process (test/support/cli.ts); the launcher's own process is tested at the end.
describe('gleaner CLI against the running local stack', () => {
  it('creates a user and a token that saves, then revokes it', async () => {
    const created = await gleaner(['users', 'create', '--name', 'Ada', '--json'], env);
    expect(created.code).toBe(0);
    const user = parse(created.stdout);
    expect(user).toEqual({ id: expect.any(String), name: 'Ada', plan: 'free', note_cap: 1000, note_count: 0 });

    const minted = parse(
      (await gleaner(['tokens', 'create', '--user', user.id, '--label', 'laptop', '--json'], env)).stdout,
    );
    expect(minted).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^gln_[0-9A-Za-z]{36}$/),
      user_id: user.id,
      expires: null,
    });

    const saved = await json(
      await t.save(minted.token, { url: 'https://example.com/cli', selection: 'hello', comment: '#cli' }),
    );
    const note = parse((await gleaner(['notes', 'get', saved.note_id, '--json'], env)).stdout);
    expect(note).toEqual({
      id: saved.note_id,
      bookmark_id: saved.bookmark.id,
      url: 'https://example.com/cli',
      title: 'https://example.com/cli',
      body: expect.stringContaining('> hello'),
      tags: ['cli'],
      created: expect.any(String),
      updated: expect.any(String),
      archived: false,
      archived_at: null,
      starred: false,
      starred_at: null,
    });
    // A resource with a list field (its tags) is still key: value lines, not a table.
    expect((await gleaner(['notes', 'get', saved.note_id], env)).stdout).toMatch(/^id: +\S+\n(?:.*\n)*tags: +cli\n/);
    const bookmark = parse((await gleaner(['bookmarks', 'get', saved.bookmark.id, '--json'], env)).stdout);
    expect(bookmark).toEqual(saved.bookmark);

    expect(parse((await gleaner(['tokens', 'revoke', minted.id, '--json'], env)).stdout)).toEqual({
      id: minted.id,
      revoked: true,
    });
    expect((await t.save(minted.token, { url: 'https://example.com/cli' })).status).toBe(401);
  });

  it("moves a note to the Trash, restores it, and deletes it for good, each for the note's own user", async () => {
    const newUser = async (name: string, cap: string) =>
      parse((await gleaner(['users', 'create', '--name', name, '--note-cap', cap, '--json'], env)).stdout);
    const tokenOf = async (userId: string) =>
      parse((await gleaner(['tokens', 'create', '--user', userId, '--json'], env)).stdout).token as string;
    const [ana, bo] = [await newUser('Ana', '2'), await newUser('Bo', '10')];
    const [anaToken, boToken] = [await tokenOf(ana.id), await tokenOf(bo.id)];
    const kept = await json(
      await t.save(anaToken, { url: 'https://example.com/trash-1', selection: 'kept', comment: '#t' }),
    );
    await json(await t.save(anaToken, { url: 'https://example.com/trash-2' }));
    const bos = await json(await t.save(boToken, { url: 'https://example.com/trash-1' }));
    const idsOf = async (userId: string) =>
      parse((await gleaner(['notes', 'list', '--user', userId, '--json'], env)).stdout).notes.map(
        (note: { id: string }) => note.id,
      );
    const trashOf = async (userId: string) =>
      parse((await gleaner(['notes', 'list', '--user', userId, '--trash', '--json'], env)).stdout).notes.map(
        (note: { id: string }) => note.id,
      );
    const countOf = async (userId: string) =>
      parse((await gleaner(['users', 'list', '--limit', '100', '--json'], env)).stdout).users.find(
        (user: { id: string }) => user.id === userId,
      ).note_count;

    const trashed = parse((await gleaner(['notes', 'delete', kept.note_id, '--json'], env)).stdout);
    expect(trashed).toEqual({
      id: kept.note_id,
      bookmark_id: kept.bookmark.id,
      trashed_at: expect.any(String),
      purge_at: expect.any(String),
    });
    expect(Date.parse(trashed.purge_at) - Date.parse(trashed.trashed_at)).toBe(30 * 86_400_000);
    // Ana's note left her list and her count; Bo's note of the same page is untouched.
    expect(await idsOf(ana.id)).not.toContain(kept.note_id);
    expect([await countOf(ana.id), await countOf(bo.id)]).toEqual([1, 1]);
    expect(await idsOf(bo.id)).toEqual([bos.note_id]);
    expect([await trashOf(ana.id), await trashOf(bo.id)]).toEqual([[kept.note_id], []]);
    // Still there, in the Trash, with its bookmark.
    expect(parse((await gleaner(['notes', 'get', kept.note_id, '--json'], env)).stdout)).toMatchObject({
      id: kept.note_id,
      tags: ['t'],
      trashed_at: trashed.trashed_at,
      purge_at: trashed.purge_at,
    });
    expect((await gleaner(['bookmarks', 'get', kept.bookmark.id, '--json'], env)).code).toBe(0);
    const again = await gleaner(['notes', 'delete', kept.note_id], env);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/is in the Trash already: restore it with `notes restore`, or give --forever/);
    // Restoring a live note names nothing in the Trash.
    const live = await gleaner(['notes', 'restore', bos.note_id], env);
    expect(live).toMatchObject({ code: 1, stdout: '' });
    expect(live.stderr).toBe(`gleaner: no note with id ${bos.note_id} in the Trash\n`);

    // Back as it was, under Ana's cap (Bo has room; Ana's own cap is what counts).
    const restored = parse((await gleaner(['notes', 'restore', kept.note_id, '--json'], env)).stdout);
    expect(restored).toMatchObject({ id: kept.note_id, tags: ['t'], body: expect.stringContaining('> kept') });
    expect(restored).not.toHaveProperty('trashed_at');
    expect(await idsOf(ana.id)).toContain(kept.note_id);
    expect(await trashOf(ana.id)).toEqual([]);
    expect(await countOf(ana.id)).toBe(2);
    await gleaner(['notes', 'delete', kept.note_id], env);
    expect((await t.save(anaToken, { url: 'https://example.com/trash-3' })).status).toBe(200);
    const atCap = await gleaner(['notes', 'restore', kept.note_id], env);
    expect(atCap).toMatchObject({ code: 1, stdout: '' });
    expect(atCap.stderr).toMatch(/note limit \(2 notes\) is reached: the note stays in the Trash/);

    // For good: from the Trash, and a live note at once; the bookmarks go too, Bo's stays.
    expect(parse((await gleaner(['notes', 'delete', kept.note_id, '--forever', '--json'], env)).stdout)).toEqual({
      id: kept.note_id,
      bookmark_id: kept.bookmark.id,
      deleted: true,
    });
    expect((await gleaner(['notes', 'get', kept.note_id], env)).stderr).toMatch(/no note with id/);
    expect((await gleaner(['bookmarks', 'get', kept.bookmark.id], env)).stderr).toMatch(/no bookmark with id/);
    expect(parse((await gleaner(['notes', 'delete', bos.note_id, '--forever', '--json'], env)).stdout)).toEqual({
      id: bos.note_id,
      bookmark_id: bos.bookmark.id,
      deleted: true,
    });
    expect([await countOf(ana.id), await countOf(bo.id)]).toEqual([2, 0]);
    expect((await gleaner(['notes', 'restore', kept.note_id], env)).stderr).toMatch(/no note with id/);
    // Bo's page, saved again, is a new bookmark.
    expect(await json(await t.save(boToken, { url: 'https://example.com/trash-1' }))).toMatchObject({
      is_new_bookmark: true,
    });
  });

  it('migrates, as many times as it is run', async () => {
    for (let run = 0; run < 2; run++) {
      const migrated = await gleaner(['migrate', '--json'], env);
      expect(migrated.code).toBe(0);
      expect(parse(migrated.stdout)).toEqual({
        migrations: [
          { name: 'list-indexes', description: expect.any(String), users: 0, tokens: 0, notes: 0, highlights: 0 },
          { name: 'highlight-records', description: expect.any(String), notes: 0, highlights: 0 },
          { name: 'note-links', description: expect.any(String), notes: run === 0 ? expect.any(Number) : 0 },
          // The bookmarks saved above wait in the enrichment outbox (no workers here): none is listed.
          { name: 'article-backfill', description: expect.any(String), queued: 0, articles: 0 },
          // The notes saved above reach the index here: this stack runs no stream poller.
          { name: 'search-index', description: expect.any(String), indexed: run === 0 ? expect.any(Number) : 0 },
        ],
      });
    }
    // For people, a table with every column --json has, highlights included.
    const table = (await gleaner(['migrate'], env)).stdout.split('\n');
    expect(table[0]).toMatch(/^name +description +users +tokens +notes +highlights +queued +articles +indexed$/);
    expect(table[2]).toMatch(/^highlight-records .* - +- +0 +0 +- +- +-$/);
  });

  it('creates pro users and custom caps', async () => {
    expect(
      parse((await gleaner(['users', 'create', '--name', 'Pro', '--plan', 'pro', '--json'], env)).stdout),
    ).toMatchObject({ plan: 'pro' });
    expect(
      parse((await gleaner(['users', 'create', '--name', 'Small', '--note-cap', '3', '--json'], env)).stdout),
    ).toMatchObject({ plan: 'free', note_cap: 3 });
  });

  it('lists and deletes notes; a user at the cap deletes one and saves again', async () => {
    const user = parse(
      (await gleaner(['users', 'create', '--name', 'Capped', '--note-cap', '2', '--json'], env)).stdout,
    );
    const { token } = parse((await gleaner(['tokens', 'create', '--user', user.id, '--json'], env)).stdout);
    const first = await json(await t.save(token, { url: 'https://example.com/cap-1', comment: '#keep' }));
    const second = await json(await t.save(token, { url: 'https://example.com/cap-2' }));
    expect((await t.save(token, { url: 'https://example.com/cap-3' })).status).toBe(402);

    const notes = parse((await gleaner(['notes', 'list', '--user', user.id, '--json'], env)).stdout);
    expect(notes.notes.map((note: { id: string }) => note.id)).toEqual([second.note_id, first.note_id]);
    expect(notes.cursor).toBeNull();
    const page = parse((await gleaner(['notes', 'list', '--user', user.id, '--limit', '1', '--json'], env)).stdout);
    expect(page.notes).toHaveLength(1);
    const next = parse(
      (await gleaner(['notes', 'list', '--user', user.id, '--limit', '1', '--cursor', page.cursor, '--json'], env))
        .stdout,
    );
    expect(next.notes.map((note: { id: string }) => note.id)).toEqual([first.note_id]);
    // The last page is full, yet nothing follows it: no cursor.
    expect(next.cursor).toBeNull();
    expect(
      parse((await gleaner(['bookmarks', 'list', '--user', user.id, '--limit', '2', '--json'], env)).stdout).cursor,
    ).toBeNull();
    const foreign = await gleaner(['notes', 'list', '--user', user.id, '--tag', 'keep', '--cursor', page.cursor], env);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/^gleaner: the cursor is not one this list gave out/);
    const tagged = parse(
      (await gleaner(['bookmarks', 'list', '--user', user.id, '--tag', '#Keep', '--json'], env)).stdout,
    );
    expect(tagged).toEqual({ bookmarks: [first.bookmark], cursor: null });

    // To the Trash: out of the lists and the cap, so the capped user saves again.
    expect(parse((await gleaner(['notes', 'delete', first.note_id, '--json'], env)).stdout)).toEqual({
      id: first.note_id,
      bookmark_id: first.bookmark.id,
      trashed_at: expect.any(String),
      purge_at: expect.any(String),
    });
    expect((await t.save(token, { url: 'https://example.com/cap-3' })).status).toBe(200);

    const table = (await gleaner(['bookmarks', 'list', '--user', user.id], env)).stdout;
    expect(table).toMatch(/^id +note_id +title +url +icon +created +updated\n/);
    expect(table).not.toMatch(/cursor/);
  });

  it('lists, expires and rotates tokens, never showing a secret again', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Rotator', '--json'], env)).stdout);
    const old = parse(
      (await gleaner(['tokens', 'create', '--user', user.id, '--label', 'phone', '--expires-in', '90d', '--json'], env))
        .stdout,
    );
    expect(Date.parse(old.expires) - Date.now()).toBeGreaterThan(89 * 86_400_000);
    expect(
      (await t.save(old.token, { url: 'https://example.com/rotate' }, { 'User-Agent': 'curl/8.5.0' })).status,
    ).toBe(200);

    const rotated = parse((await gleaner(['tokens', 'rotate', old.id, '--grace', '0m', '--json'], env)).stdout);
    expect(rotated).toMatchObject({
      id: expect.any(String),
      token: expect.stringMatching(/^gln_/),
      label: 'phone',
      replaces: old.id,
    });
    // The replacement keeps the old token's lifetime (90 days), counted from the rotation.
    const day = 86_400_000;
    expect(Date.parse(rotated.expires) - Date.now()).toBeGreaterThan(89 * day);
    expect(Date.parse(rotated.expires) - Date.now()).toBeLessThanOrEqual(90 * day);
    expect((await t.save(old.token, { url: 'https://example.com/rotate' })).status).toBe(401);
    expect((await t.save(rotated.token, { url: 'https://example.com/rotate' })).status).toBe(200);

    const listed = (await gleaner(['tokens', 'list', '--user', user.id, '--json'], env)).stdout;
    expect(listed).not.toContain(old.token);
    // Newest first, as the help says.
    expect(parse(listed).tokens).toEqual([
      {
        id: rotated.id,
        label: 'phone',
        created: expect.any(String),
        last_used: expect.any(String),
        last_used_by: expect.any(String),
        expires: rotated.expires,
        revoked: false,
      },
      {
        id: old.id,
        label: 'phone',
        created: expect.any(String),
        last_used: expect.any(String),
        last_used_by: 'curl',
        expires: rotated.replaced_expires,
        revoked: false,
      },
    ]);
    const again = await gleaner(['tokens', 'rotate', old.id, '--json'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`gleaner: token ${old.id} is revoked or expired already; create a new one instead\n`);

    // --expires-in gives the replacement another lifetime; a token without expiry gives one without.
    const shorter = parse(
      (await gleaner(['tokens', 'rotate', rotated.id, '--expires-in', '1d', '--json'], env)).stdout,
    );
    expect(Date.parse(shorter.expires) - Date.now()).toBeLessThanOrEqual(day);
    expect(Date.parse(shorter.expires) - Date.now()).toBeGreaterThan(day - 60_000);
    const forever = parse((await gleaner(['tokens', 'create', '--user', user.id, '--json'], env)).stdout);
    expect(parse((await gleaner(['tokens', 'rotate', forever.id, '--json'], env)).stdout).expires).toBeNull();
  });

  it('imports a browser bookmark file, exports it back, and the export imports into a fresh user', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Importer', '--json'], env)).stdout);
    const file = join(env.GLEANER_DATA_DIR!, 'bookmarks.html');
    writeFileSync(
      file,
      '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Reading</H3>\n<DL><p>\n<DT><A HREF="https://example.com/imported" ADD_DATE="1500000000" TAGS="later">Imported</A>\n</DL><p>\n</DL><p>\n',
    );
    const report = parse((await gleaner(['import', '--user', user.id, file, '--json'], env)).stdout);
    expect(report).toEqual({
      user_id: user.id,
      // Recorded as the account's import, as an upload's is (Settings › Import lists it).
      import_id: expect.any(String),
      format: 'netscape',
      rows: 1,
      imported: 1,
      merged: 0,
      notes: 0,
      highlights: 0,
      articles: 0,
      skipped: [],
      notes_without_bookmark: [],
      over_cap: 0,
      note_cap: null,
      notices: [],
      // Its page waits in the import backlog, which the sweeper hands out a bounded batch at a time.
      enrichment_waiting: 1,
    });
    expect(parse((await gleaner(['import', '--user', user.id, file, '--json'], env)).stdout)).toMatchObject({
      imported: 0,
      merged: 1,
    });

    const exported = await gleaner(['export', '--user', user.id], env);
    expect(exported.stdout).toMatch(/^<!DOCTYPE NETSCAPE-Bookmark-file-1>/);
    expect(exported.stdout).toMatch(
      /<DT><A HREF="https:\/\/example.com\/imported" ADD_DATE="1500000000" LAST_MODIFIED="\d+" TAGS="reading,later">Imported<\/A>\n {4}<DD>Source: \[Imported\]\(https:\/\/example.com\/imported\)\n/,
    );
    const json = parse((await gleaner(['export', '--user', user.id, '--format', 'json', '--json'], env)).stdout);
    expect(json.bookmarks).toEqual([
      {
        url: 'https://example.com/imported',
        title: 'Imported',
        created: expect.stringMatching(/^2017-07-14T02:40:00/),
        updated: expect.any(String),
        tags: ['reading', 'later'],
        note: expect.stringContaining('https://example.com/imported'),
        highlights: [],
        archived: false,
        archived_at: null,
        starred: false,
        starred_at: null,
      },
    ]);

    writeFileSync(file, exported.stdout);
    const copy = parse((await gleaner(['users', 'create', '--name', 'Copy', '--json'], env)).stdout);
    await gleaner(['import', '--user', copy.id, file, '--json'], env);
    expect((await gleaner(['export', '--user', copy.id], env)).stdout).toBe(exported.stdout);
    // A file that cannot be read is an I/O failure (1), not a usage mistake.
    const missing = await gleaner(['import', '--user', copy.id, join(env.GLEANER_DATA_DIR!, 'missing.html')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^gleaner: cannot read .*missing\.html: ENOENT\n$/);

    // The JSON export imports too; a JSON file that is not one is named as such (a usage error, exit 2).
    const jsonFile = join(env.GLEANER_DATA_DIR!, 'export.json');
    writeFileSync(jsonFile, JSON.stringify(json));
    const fromJson = parse((await gleaner(['users', 'create', '--name', 'From JSON', '--json'], env)).stdout);
    expect(parse((await gleaner(['import', '--user', fromJson.id, jsonFile, '--json'], env)).stdout)).toMatchObject({
      imported: 1,
    });
    expect(
      parse((await gleaner(['export', '--user', fromJson.id, '--format', 'json', '--json'], env)).stdout).bookmarks,
    ).toEqual(json.bookmarks);
    writeFileSync(jsonFile, '{"bookmarks": [{"url": 1}]}');
    const refused = await gleaner(['import', '--user', fromJson.id, jsonFile], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^gleaner: .*export\.json is not a Gleaner JSON export: bookmarks\[0\]\.url is missing or of the wrong type/,
    );
  });

  it('imports a Pocket zip with --json as {format, rows, imported, merged, highlights, skipped}; a file of no known format exits 2 naming the formats', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Pocket', '--json'], env)).stdout);
    const other = parse((await gleaner(['users', 'create', '--name', 'Other', '--json'], env)).stdout);
    const zip = join(env.GLEANER_DATA_DIR!, 'pocket.zip');
    writeFileSync(
      zip,
      zipSync({
        'part_000000.csv': strToU8(
          'title,url,time_added,tags,status\n"Two\nlines",https://example.org/a,1712345678,geo|café,archive\nScript,javascript:alert(1),1712345679,,unread\n',
        ),
        'annotations/part_000000.json': strToU8(
          JSON.stringify([
            { url: 'https://example.org/a', title: 'A', highlights: [{ quote: 'Kept.', created_at: 1712400000 }] },
          ]),
        ),
      }),
    );
    const report = parse((await gleaner(['import', '--user', user.id, zip, '--json'], env)).stdout);
    expect(report).toMatchObject({
      format: 'pocket',
      rows: 2,
      imported: 1,
      merged: 0,
      highlights: 1,
      skipped: [{ file: 'part_000000.csv', row: 2, reason: 'not an http(s) URL (javascript:)' }],
    });
    const [bookmark] = parse(
      (await gleaner(['export', '--user', user.id, '--format', 'json', '--json'], env)).stdout,
    ).bookmarks;
    expect(bookmark).toMatchObject({
      url: 'https://example.org/a',
      title: 'Two lines',
      created: expect.stringMatching(/^2024-04-05T19:34:38/),
      tags: ['geo', 'café'],
      highlights: [{ quote: 'Kept.', comment: null, saved: expect.stringMatching(/^2024-04-06T10:40:00/) }],
    });
    expect(parse((await gleaner(['import', '--user', user.id, zip, '--json'], env)).stdout)).toMatchObject({
      imported: 0,
      merged: 1,
      highlights: 0,
    });
    expect(
      parse((await gleaner(['export', '--user', other.id, '--format', 'json', '--json'], env)).stdout).bookmarks,
    ).toEqual([]);
    // Without --json the skipped rows are told on stderr.
    const told = await gleaner(['import', '--user', user.id, zip], env);
    expect(told.stderr).toContain('skipped part_000000.csv row 2: not an http(s) URL (javascript:)');

    const unknown = join(env.GLEANER_DATA_DIR!, 'notes.txt');
    writeFileSync(unknown, 'just some text, with a comma\n');
    const refused = await gleaner(['import', '--user', user.id, unknown, '--json'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /notes\.txt is not an export of a known format; Gleaner imports: a Pocket zip .*Instapaper's CSV/,
    );
  });

  it('exports highlights with their text, order and times, and imports them so into a new user, in either format', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Highlighter', '--json'], env)).stdout);
    const { token } = parse((await gleaner(['tokens', 'create', '--user', user.id, '--json'], env)).stdout);
    const url = 'https://example.com/highlighted';
    await t.save(token, { url, selection: 'First quote', comment: 'first thought #kept' });
    await t.save(token, { url, selection: 'Second quote', append: true });
    // A later second: a bookmark file keeps whole seconds, and these must stay apart and in order.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await t.save(token, { url, selection: 'Third quote\nover two lines', comment: 'last', append: true });
    const exportJson = async (userId: string) =>
      parse((await gleaner(['export', '--user', userId, '--format', 'json', '--json'], env)).stdout).bookmarks;
    const original = await exportJson(user.id);
    expect(original[0].highlights).toEqual([
      { quote: 'First quote', comment: 'first thought #kept', saved: expect.any(String) },
      { quote: 'Second quote', comment: null, saved: expect.any(String) },
      { quote: 'Third quote\nover two lines', comment: 'last', saved: expect.any(String) },
    ]);
    const times = original[0].highlights.map((highlight: { saved: string }) => Date.parse(highlight.saved));
    expect(times[1]).toBeGreaterThan(times[0]);
    expect(times[2] - times[1]).toBeGreaterThan(1000);

    // JSON: everything exactly, times to the millisecond.
    const jsonFile = join(env.GLEANER_DATA_DIR!, 'highlights.json');
    writeFileSync(jsonFile, JSON.stringify({ bookmarks: original }));
    const fromJson = parse((await gleaner(['users', 'create', '--name', 'From JSON', '--json'], env)).stdout);
    await gleaner(['import', '--user', fromJson.id, jsonFile, '--json'], env);
    expect(await exportJson(fromJson.id)).toEqual(original);

    // A bookmark file: the same text and order, each time to the second.
    const htmlFile = join(env.GLEANER_DATA_DIR!, 'highlights.html');
    writeFileSync(htmlFile, (await gleaner(['export', '--user', user.id], env)).stdout);
    const fromFile = parse((await gleaner(['users', 'create', '--name', 'From file', '--json'], env)).stdout);
    await gleaner(['import', '--user', fromFile.id, htmlFile, '--json'], env);
    const toSeconds = (highlights: { quote: string; comment: string | null; saved: string }[]) =>
      highlights.map((highlight) => ({ ...highlight, saved: Math.floor(Date.parse(highlight.saved) / 1000) }));
    expect(toSeconds((await exportJson(fromFile.id))[0].highlights)).toEqual(toSeconds(original[0].highlights));

    // The table shows each note on one line, its body cut; `notes get` and --json show it whole.
    const table = (await gleaner(['notes', 'list', '--user', user.id], env)).stdout;
    expect(table.trimEnd().split('\n')).toHaveLength(2);
    expect(table).not.toContain('Second quote');
    const listed = parse((await gleaner(['notes', 'list', '--user', user.id, '--json'], env)).stdout).notes;
    expect(listed[0].body).toContain('> Third quote\n> over two lines');
    expect((await gleaner(['notes', 'get', listed[0].id], env)).stdout).toContain('  > Second quote');
  });

  it('lists users and changes their plan', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Upgrader', '--json'], env)).stdout);
    const later = parse((await gleaner(['users', 'create', '--name', 'Later', '--json'], env)).stdout);
    // Newest first, as the help says.
    const listed = parse((await gleaner(['users', 'list', '--limit', '2', '--json'], env)).stdout);
    expect(listed.users).toEqual([later, user]);
    expect(parse((await gleaner(['users', 'update', user.id, '--plan', 'pro', '--json'], env)).stdout)).toEqual({
      ...user,
      plan: 'pro',
      note_cap: 1_000_000,
    });
    expect(parse((await gleaner(['users', 'update', user.id, '--note-cap', '7', '--json'], env)).stdout)).toEqual({
      ...user,
      plan: 'pro',
      note_cap: 7,
    });
  });

  it.concurrent.each([
    [['notes', 'get', '00000000-0000-4000-8000-000000000000', '--json'], /no note with id/],
    [['bookmarks', 'get', '00000000-0000-4000-8000-000000000000', '--json'], /no bookmark with id/],
    [['tokens', 'revoke', '00000000-0000-4000-8000-000000000000', '--json'], /no token with id/],
    [['tokens', 'rotate', '00000000-0000-4000-8000-000000000000', '--json'], /no token with id/],
    [['tokens', 'list', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['export', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['tokens', 'create', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [
      ['feeds', 'create', '--user', '00000000-0000-4000-8000-000000000000', '--title', 'x', '--tags', 'x', '--json'],
      /no user with id/,
    ],
    [['feeds', 'list', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['feeds', 'update', '00000000-0000-4000-8000-000000000000', '--title', 'x', '--json'], /no feed with id/],
    [['notes', 'list', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['bookmarks', 'list', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['notes', 'delete', '00000000-0000-4000-8000-000000000000', '--json'], /no note with id/],
    [['notes', 'delete', '00000000-0000-4000-8000-000000000000', '--forever', '--json'], /no note with id/],
    [['notes', 'restore', '00000000-0000-4000-8000-000000000000', '--json'], /no note with id/],
    [['users', 'update', '00000000-0000-4000-8000-000000000000', '--plan', 'pro', '--json'], /no user with id/],
    [['feeds', 'get', '00000000-0000-4000-8000-000000000000', '--json'], /no feed with id/],
    [['feeds', 'delete', '00000000-0000-4000-8000-000000000000', '--json'], /no feed with id/],
    [['import', '--user', '00000000-0000-4000-8000-000000000000', 'package.json', '--json'], /no user with id/],
  ])('fails with exit status 1 for an id that names nothing: %j', async (args, message) => {
    const result = await gleaner(args, env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('creates, updates, lists and deletes feeds', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Publisher', '--json'], env)).stdout);
    const creation = await gleaner(
      ['feeds', 'create', '--user', user.id, '--title', 'Links', '--tags', 'AWS,#reading', '--json'],
      env,
    );
    const created = parse(creation.stdout);
    expect(created).toEqual({
      id: expect.any(String),
      title: 'Links',
      description: null,
      tags: ['aws', 'reading'],
      match: 'any',
      sharing: 'private',
      items: 'notes',
      page_url: `${t.stack.baseUrl}/feeds/${created.id}`,
      rss_url: `${t.stack.baseUrl}/api/v2/publisher/feeds/${created.id}/rss`,
      atom_url: `${t.stack.baseUrl}/feeds/${created.id}/atom`,
      json_feed_url: `${t.stack.baseUrl}/feeds/${created.id}/feed.json`,
      json_url: `${t.stack.baseUrl}/api/v2/publisher/feeds/${created.id}/public`,
    });
    const addresses = [created.page_url, created.rss_url, created.atom_url, created.json_feed_url, created.json_url];
    // Private: every address answers 404, and the CLI says so and how to share the feed.
    expect(creation.stderr).toBe(
      `gleaner: feed ${created.id} is private, so its addresses answer 404 to everyone; to share it with whoever has the link: gleaner feeds update ${created.id} --sharing link\n`,
    );
    expect(await Promise.all(addresses.map(async (address) => (await fetch(address)).status))).toEqual([
      404, 404, 404, 404, 404,
    ]);
    expect((await contractFetch(created.json_url)).status).toBe(404);
    const shared = await gleaner(['feeds', 'update', created.id, '--sharing', 'link', '--json'], env);
    expect(shared.stderr).toBe('');
    expect(await Promise.all(addresses.map(async (address) => (await fetch(address)).status))).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(parse((await gleaner(['feeds', 'get', created.id, '--json'], env)).stdout)).toEqual({
      ...created,
      sharing: 'link',
    });

    const updated = parse(
      (
        await gleaner(
          [
            'feeds',
            'update',
            created.id,
            '--sharing',
            'public',
            '--match',
            'all',
            '--description',
            'Mine',
            '--items',
            'highlights',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    expect(updated).toMatchObject({
      id: created.id,
      sharing: 'public',
      match: 'all',
      description: 'Mine',
      tags: ['aws', 'reading'],
      items: 'highlights',
    });
    expect((await gleaner(['feeds', 'update', created.id, '--items', 'quotes'], env)).stderr).toMatch(
      /items must be notes or highlights/,
    );
    expect((await contractFetch(created.rss_url)).status).toBe(200);

    const second = parse(
      (await gleaner(['feeds', 'create', '--user', user.id, '--title', 'Later', '--tags', 'x', '--json'], env)).stdout,
    );
    // Newest first, as the help says; the private one named on stderr.
    const listed = await gleaner(['feeds', 'list', '--user', user.id, '--json'], env);
    expect(parse(listed.stdout)).toEqual({ feeds: [second, updated] });
    expect(listed.stderr).toContain(`gleaner: feed ${second.id} is private`);
    expect(listed.stderr).not.toContain(created.id);
    await gleaner(['feeds', 'delete', second.id], env);
    expect(parse((await gleaner(['feeds', 'delete', created.id, '--json'], env)).stdout)).toEqual({
      id: created.id,
      deleted: true,
    });
    expect((await contractFetch(created.json_url)).status).toBe(404);
    expect((await gleaner(['feeds', 'delete', created.id, '--json'], env)).stderr).toMatch(/no feed with id/);
  });

  it.concurrent.each([
    [['users', 'create', '--plan', 'gold', '--name', 'x'], 'gleaner: --plan must be free or pro'],
    [['feeds', 'create', '--user', someId, '--title', 'No tags'], 'gleaner: --tags is required'],
    [
      ['feeds', 'create', '--user', someId, '--title', 'No tags', '--tags', ' , '],
      'gleaner: a feed needs at least one tag',
    ],
    [
      ['feeds', 'frobnicate'],
      'gleaner: unknown command "feeds frobnicate"; feeds takes create, get, update, list, delete',
    ],
    [
      ['frobnicate'],
      'gleaner: unknown command "frobnicate"; the commands are users, tokens, notes, bookmarks, import, export, search, reindex, migrate, feeds',
    ],
    [['feeds'], 'gleaner: "feeds" needs one of create, get, update, list, delete'],
    [['feeds', 'list', '--colour'], 'gleaner: unknown option --colour'],
    [['feeds', 'list', '--user'], 'gleaner: --user needs a value'],
    [[], 'gleaner: no command given'],
    [['users', 'update', someId], 'gleaner: give --plan or --note-cap (or both)'],
    [
      ['tokens', 'create', '--user', someId, '--expires-in', '3 weeks'],
      'gleaner: --expires-in takes a duration such as 90d, 24h or 30m',
    ],
    [
      ['tokens', 'rotate', someId, '--expires-in', 'soon'],
      'gleaner: --expires-in takes a duration such as 90d, 24h or 30m',
    ],
    [['notes', 'list', '--user', someId, '--limit', '0'], 'gleaner: --limit must be from 1 to 100'],
    [['notes', 'list', '--user', someId, '--trash', '--tag', 'a'], 'gleaner: give --tag or --trash, not both'],
    [['bookmarks', 'list', '--user', someId, '--tag', 'a,b'], 'gleaner: --tag takes one tag'],
    [
      ['feeds', 'update', someId],
      'gleaner: give at least one of --title, --description, --tags, --match, --sharing, --items',
    ],
    [['export', '--user', someId, '--format', 'csv'], 'gleaner: --format must be netscape or json'],
    [['import', '--user', someId], 'gleaner: FILE is required'],
    [['users', 'list', '--limit', 'ten'], 'gleaner: --limit must be a whole number'],
    // A malformed id is an invalid value (2), told apart from an id that names nothing (1).
    ...(
      [
        ['notes', 'get', 'NOTE_ID'],
        ['notes', 'delete', 'NOTE_ID'],
        ['notes', 'restore', 'NOTE_ID'],
        ['bookmarks', 'get', 'BOOKMARK_ID'],
        ['tokens', 'rotate', 'TOKEN_ID'],
        ['tokens', 'revoke', 'TOKEN_ID'],
        ['feeds', 'get', 'FEED_ID'],
        ['feeds', 'update', 'FEED_ID', '--title', 'x'],
        ['feeds', 'delete', 'FEED_ID'],
        ['users', 'update', 'USER_ID', '--plan', 'pro'],
      ] as const
    ).map(([resource, action, name, ...rest]): [string[], string] => [
      [resource, action, 'not-a-uuid', ...rest],
      `gleaner: ${name} must be a UUID, such as the id a create command printed (got "not-a-uuid")`,
    ]),
    ...(
      [
        ['tokens', 'create'],
        ['tokens', 'list'],
        ['notes', 'list'],
        ['bookmarks', 'list'],
        ['feeds', 'list'],
        ['feeds', 'create', '--title', 'x', '--tags', 'x'],
        ['export'],
        ['import', 'file.html'],
      ] as const
    ).map((args): [string[], string] => [
      [...args, '--user', 'not-a-uuid'],
      'gleaner: --user must be a UUID, such as the id a create command printed (got "not-a-uuid")',
    ]),
  ])('rejects bad usage with exit code 2, naming what was wrong: %j', async (args, message) => {
    const result = await gleaner(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${message}\nRun \`gleaner help\` for the commands and their options.\n`);
  });

  it.each(Object.keys(commands))('prints the own help of `%s --help`, and `help %s` prints the same', async (name) => {
    const result = await gleaner([...name.split(' '), '--help'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^Usage: gleaner ${name}\\b`));
    expect(result.stdout).not.toContain('Commands:');
    expect(await gleaner(['help', ...name.split(' ')], env)).toEqual(result);
  });

  it('lists the commands of a resource for `feeds --help`', async () => {
    const { stdout } = await gleaner(['feeds', '--help'], env);
    expect(stdout.match(/^ {2}gleaner feeds \w+/gm)).toEqual([
      '  gleaner feeds create',
      '  gleaner feeds get',
      '  gleaner feeds update',
      '  gleaner feeds list',
      '  gleaner feeds delete',
    ]);
  });

  it.each([['help'], ['--help'], ['-h']])('prints the usage and exits 0 for %j', async (...args) => {
    const result = await gleaner(args, env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: gleaner <command>/);
    expect(result.stderr).toBe('');
  });

  it.each([['--version'], ['version']])('prints its version for %s', async (flag) => {
    const { version } = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
    expect(await gleaner([flag], env)).toEqual({ code: 0, stdout: `gleaner ${version}\n`, stderr: '' });
  });

  it('prints key: value lines and tables for people, JSON only with --json', async () => {
    const user = (await gleaner(['users', 'create', '--name', 'Reader'], env)).stdout;
    expect(user).toMatch(/^id: {9}[0-9a-f-]{36}\nname: {7}Reader\nplan: {7}free\nnote_cap: {3}1000\nnote_count: 0\n$/);
    const userId = /^id: +(\S+)/.exec(user)![1]!;
    await gleaner(['feeds', 'create', '--user', userId, '--title', 'Reading', '--tags', 'reading,aws'], env);
    await gleaner(
      ['feeds', 'create', '--user', userId, '--title', 'Later', '--tags', 'later', '--sharing', 'public'],
      env,
    );
    // A feed has five addresses: each is a block of key: value lines, newest first.
    const blocks = (await gleaner(['feeds', 'list', '--user', userId], env)).stdout.split('\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(
      /^id: +\S+\ntitle: +Later\ndescription: +-\ntags: +later\nmatch: +any\nsharing: +public\nitems: +notes\npage_url: +http:\/\/\S+\/feeds\/\S+\nrss_url: +\S+\/rss\natom_url: +\S+\/atom\njson_feed_url: +\S+\/feed\.json\njson_url: +\S+\/public$/,
    );
    expect(blocks[1]).toMatch(/\ntitle: +Reading\n(?:.*\n)*tags: +reading, aws\n/);
    const none = parse((await gleaner(['users', 'create', '--name', 'Nobody', '--json'], env)).stdout);
    expect((await gleaner(['feeds', 'list', '--user', none.id], env)).stdout).toBe('(no feeds)\n');
  });
});

// What only a process shows: the launcher (its shebang, tsx), the exit status and stdout flushed before exit.
describe('the gleaner launcher, cli/gleaner.mjs, as a process', { timeout: 120_000 }, () => {
  it.concurrent('exits 0 with the whole answer on stdout', async () => {
    const created = await gleanerProcess(['users', 'create', '--name', 'Launched', '--json'], env);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(parse(created.stdout)).toMatchObject({ name: 'Launched', plan: 'free' });
  });

  it.concurrent('sends the mail notice of `users invite --json` to stderr: stdout is the JSON alone', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Invited', '--json'], env)).stdout);
    const email = `invited-${user.id}@example.com`;
    const invited = await gleanerProcess(['users', 'invite', user.id, '--email', email, '--json'], env);
    expect(invited.code).toBe(0);
    expect(parse(invited.stdout)).toMatchObject({ user_id: user.id, email, expires_in: '7d' });
    expect(invited.stderr).toContain(`mail to ${email}`);
  });

  it.concurrent('builds its bundle in a clean copy of the project on the first run, and again after a change', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'gleaner-clone-'));
    try {
      for (const part of ['cli', 'functions', 'local', 'package.json', 'package-lock.json'])
        cpSync(join(repositoryRoot, part), join(copy, part), { recursive: true });
      symlinkSync(join(repositoryRoot, 'node_modules'), join(copy, 'node_modules'));
      const launcher = join(copy, 'cli/gleaner.mjs');
      const { version } = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { version: string };
      expect(await runFile(launcher, ['--version'], copy)).toBe(`gleaner ${version}\n`);
      expect(existsSync(join(copy, 'dist/cli/current.json'))).toBe(true);

      const later = new Date(Date.now() + 10_000);
      const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
      writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...manifest, version: '9.9.9' }));
      utimesSync(join(copy, 'package.json'), later, later);
      expect(await runFile(launcher, ['--version'], copy)).toBe('gleaner 9.9.9\n');
      // `npx gleaner` runs the project's own command.
      expect(await runFile('npx', ['--no-install', 'gleaner', '--version'], copy)).toBe('gleaner 9.9.9\n');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('has a help entry for every command and none for a command that does not exist', () => {
    expect(Object.keys(commandHelp).sort()).toEqual(Object.keys(commands).sort());
  });

  it.concurrent('exits 2 for a usage mistake', async () => {
    const result = await gleanerProcess(['feeds', 'list', '--colour'], env);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'gleaner: unknown option --colour\nRun `gleaner help` for the commands and their options.\n',
    });
  });

  it.concurrent('exits 1 and explains how to start the stack when none is running', async () => {
    const result = await gleanerProcess(['notes', 'get', 'x', '--json'], {
      GLEANER_DATA_DIR: join(tmpdir(), 'gleaner-nothing-here'),
    });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/npm start/);
  });
});

/** Runs a file in `cwd` and resolves with its stdout (rejects when it exits non-zero). */
function runFile(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { cwd }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}
