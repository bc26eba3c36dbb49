import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLocalState } from '../../local/state';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { gleaner, repositoryRoot } from '../support/processes';

let t: TestStack;
let env: Record<string, string>;
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
      title: 'https://example.com/cli',
      body: expect.stringContaining('> hello'),
      tags: ['cli'],
      created: expect.any(String),
      updated: expect.any(String),
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

  it('migrates, as many times as it is run', async () => {
    for (let run = 0; run < 2; run++) {
      const migrated = await gleaner(['migrate', '--json'], env);
      expect(migrated.code).toBe(0);
      expect(parse(migrated.stdout)).toEqual({
        migrations: [
          { name: 'list-indexes', description: expect.any(String), users: 0, tokens: 0, notes: 0 },
          { name: 'highlight-records', description: expect.any(String), notes: 0, highlights: 0 },
        ],
      });
    }
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
    const foreign = await gleaner(['notes', 'list', '--user', user.id, '--tag', 'keep', '--cursor', page.cursor], env);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/^gleaner: the cursor is not one this list gave out/);
    const tagged = parse(
      (await gleaner(['bookmarks', 'list', '--user', user.id, '--tag', '#Keep', '--json'], env)).stdout,
    );
    expect(tagged).toEqual({ bookmarks: [first.bookmark], cursor: null });

    expect(parse((await gleaner(['notes', 'delete', first.note_id, '--json'], env)).stdout)).toEqual({
      id: first.note_id,
      bookmark_id: first.bookmark.id,
      deleted: true,
    });
    expect((await gleaner(['bookmarks', 'get', first.bookmark.id, '--json'], env)).stderr).toMatch(
      /no bookmark with id/,
    );
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
    expect((await t.save(old.token, { url: 'https://example.com/rotate' })).status).toBe(401);
    expect((await t.save(rotated.token, { url: 'https://example.com/rotate' })).status).toBe(200);

    const listed = (await gleaner(['tokens', 'list', '--user', user.id, '--json'], env)).stdout;
    expect(listed).not.toContain(old.token);
    expect(parse(listed).tokens).toEqual([
      {
        id: old.id,
        label: 'phone',
        created: expect.any(String),
        last_used: expect.any(String),
        last_used_by: 'curl',
        expires: rotated.replaced_expires,
        revoked: false,
      },
      {
        id: rotated.id,
        label: 'phone',
        created: expect.any(String),
        last_used: expect.any(String),
        last_used_by: expect.any(String),
        expires: null,
        revoked: false,
      },
    ]);
    const again = await gleaner(['tokens', 'rotate', old.id, '--json'], env);
    expect(again.stderr).toMatch(/revoked or expired already/);
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
      links: 1,
      imported: 1,
      merged: 0,
      skipped: 0,
      over_cap: 0,
      note_cap: null,
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
      },
    ]);

    writeFileSync(file, exported.stdout);
    const copy = parse((await gleaner(['users', 'create', '--name', 'Copy', '--json'], env)).stdout);
    await gleaner(['import', '--user', copy.id, file, '--json'], env);
    expect((await gleaner(['export', '--user', copy.id], env)).stdout).toBe(exported.stdout);
    expect(
      (await gleaner(['import', '--user', copy.id, join(env.GLEANER_DATA_DIR!, 'missing.html')], env)).stderr,
    ).toMatch(/^gleaner: cannot read .*missing\.html: ENOENT/);

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

  it('lists users and changes their plan', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Upgrader', '--json'], env)).stdout);
    const listed = parse((await gleaner(['users', 'list', '--limit', '100', '--json'], env)).stdout);
    expect(listed.users).toContainEqual(user);
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

  it.each([
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
    [['users', 'update', '00000000-0000-4000-8000-000000000000', '--plan', 'pro', '--json'], /no user with id/],
  ])('fails clearly for an unknown id: %j', async (args, message) => {
    const result = await gleaner(args, env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('creates, updates, lists and deletes feeds', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Publisher', '--json'], env)).stdout);
    const created = parse(
      (
        await gleaner(
          ['feeds', 'create', '--user', user.id, '--title', 'Links', '--tags', 'AWS,#reading', '--json'],
          env,
        )
      ).stdout,
    );
    expect(created).toEqual({
      id: expect.any(String),
      title: 'Links',
      description: null,
      tags: ['aws', 'reading'],
      match: 'any',
      sharing: 'private',
      items: 'notes',
      json_url: `${t.stack.baseUrl}/api/v2/publisher/feeds/${created.id}/public`,
      rss_url: `${t.stack.baseUrl}/api/v2/publisher/feeds/${created.id}/rss`,
    });
    expect((await contractFetch(created.json_url)).status).toBe(404);

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

    expect(parse((await gleaner(['feeds', 'list', '--user', user.id, '--json'], env)).stdout)).toEqual({
      feeds: [updated],
    });
    expect(parse((await gleaner(['feeds', 'delete', created.id, '--json'], env)).stdout)).toEqual({
      id: created.id,
      deleted: true,
    });
    expect((await contractFetch(created.json_url)).status).toBe(404);
    expect((await gleaner(['feeds', 'delete', created.id, '--json'], env)).stderr).toMatch(/no feed with id/);
  });

  it.each([
    [['users', 'create', '--plan', 'gold', '--name', 'x'], 'gleaner: --plan must be free or pro'],
    [['feeds', 'create', '--user', 'u', '--title', 'No tags'], 'gleaner: --tags is required'],
    [
      ['feeds', 'create', '--user', 'u', '--title', 'No tags', '--tags', ' , '],
      'gleaner: a feed needs at least one tag',
    ],
    [['feeds', 'frobnicate'], 'gleaner: unknown command "feeds frobnicate"; feeds takes create, update, list, delete'],
    [
      ['frobnicate'],
      'gleaner: unknown command "frobnicate"; the commands are users, tokens, notes, bookmarks, import, export, migrate, feeds',
    ],
    [['feeds'], 'gleaner: "feeds" needs one of create, update, list, delete'],
    [['feeds', 'list', '--colour'], 'gleaner: unknown option --colour'],
    [['feeds', 'list', '--user'], 'gleaner: --user needs a value'],
    [[], 'gleaner: no command given'],
    [['users', 'update', 'u'], 'gleaner: give --plan or --note-cap (or both)'],
    [
      ['tokens', 'create', '--user', 'u', '--expires-in', '3 weeks'],
      'gleaner: --expires-in takes a duration such as 90d, 24h or 30m',
    ],
    [['notes', 'list', '--user', 'u', '--limit', '0'], 'gleaner: --limit must be from 1 to 100'],
    [['bookmarks', 'list', '--user', 'u', '--tag', 'a,b'], 'gleaner: --tag takes one tag'],
  ])('rejects bad usage with exit code 2, naming what was wrong: %j', async (args, message) => {
    const result = await gleaner(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${message}\nRun \`gleaner help\` for the commands and their options.\n`);
  });

  it.each([['help'], ['--help'], ['feeds', 'list', '-h']])('prints the usage and exits 0 for %j', async (...args) => {
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
    const lines = (await gleaner(['feeds', 'list', '--user', userId], env)).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +title +description +tags +match +sharing +items +json_url +rss_url$/);
    expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(1, 6))).toEqual(
      expect.arrayContaining([
        ['Reading', '-', 'reading, aws', 'any', 'private'],
        ['Later', '-', 'later', 'any', 'public'],
      ]),
    );
    const none = parse((await gleaner(['users', 'create', '--name', 'Nobody', '--json'], env)).stdout);
    expect((await gleaner(['feeds', 'list', '--user', none.id], env)).stdout).toBe('(no feeds)\n');
  });

  it('explains how to start the stack when none is running', async () => {
    const result = await gleaner(['notes', 'get', 'x', '--json'], {
      GLEANER_DATA_DIR: join(tmpdir(), 'gleaner-nothing-here'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/npm start/);
  });
});
