import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  writeLocalState(dataDir, { pid: process.pid, baseUrl: t.stack.baseUrl, dynamoEndpoint: t.table.endpoint, tableName: t.table.tableName });
  env = { GLEANER_DATA_DIR: dataDir };
  return () => rmSync(dataDir, { recursive: true, force: true });
});
afterAll(() => t.stop());

describe('gleaner CLI against the running local stack', () => {
  it('creates a user and a token that saves, then revokes it', async () => {
    const created = await gleaner(['users', 'create', '--name', 'Ada', '--json'], env);
    expect(created.code).toBe(0);
    const user = parse(created.stdout);
    expect(user).toEqual({ id: expect.any(String), name: 'Ada', plan: 'free', note_cap: 1000 });

    const minted = parse((await gleaner(['tokens', 'create', '--user', user.id, '--label', 'laptop', '--json'], env)).stdout);
    expect(minted).toEqual({ id: expect.any(String), token: expect.stringMatching(/^gln_[0-9A-Za-z]{36}$/), user_id: user.id });

    const saved = await json(await t.save(minted.token, { url: 'https://example.com/cli', selection: 'hello', comment: '#cli' }));
    const note = parse((await gleaner(['notes', 'get', saved.note_id, '--json'], env)).stdout);
    expect(note).toEqual({ id: saved.note_id, title: 'https://example.com/cli', body: expect.stringContaining('> hello'), tags: ['cli'], created: expect.any(String), updated: expect.any(String) });
    const bookmark = parse((await gleaner(['bookmarks', 'get', saved.bookmark.id, '--json'], env)).stdout);
    expect(bookmark).toEqual(saved.bookmark);

    expect(parse((await gleaner(['tokens', 'revoke', minted.id, '--json'], env)).stdout)).toEqual({ id: minted.id, revoked: true });
    expect((await t.save(minted.token, { url: 'https://example.com/cli' })).status).toBe(401);
  });

  it('creates pro users and custom caps', async () => {
    expect(parse((await gleaner(['users', 'create', '--name', 'Pro', '--plan', 'pro', '--json'], env)).stdout)).toMatchObject({ plan: 'pro' });
    expect(parse((await gleaner(['users', 'create', '--name', 'Small', '--note-cap', '3', '--json'], env)).stdout)).toMatchObject({ plan: 'free', note_cap: 3 });
  });

  it.each([
    [['notes', 'get', '00000000-0000-4000-8000-000000000000', '--json'], /no note with id/],
    [['bookmarks', 'get', '00000000-0000-4000-8000-000000000000', '--json'], /no bookmark with id/],
    [['tokens', 'revoke', '00000000-0000-4000-8000-000000000000', '--json'], /no token with id/],
    [['tokens', 'create', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['feeds', 'create', '--user', '00000000-0000-4000-8000-000000000000', '--title', 'x', '--tags', 'x', '--json'], /no user with id/],
    [['feeds', 'list', '--user', '00000000-0000-4000-8000-000000000000', '--json'], /no user with id/],
    [['feeds', 'update', '00000000-0000-4000-8000-000000000000', '--title', 'x', '--json'], /no feed with id/],
  ])('fails clearly for an unknown id: %j', async (args, message) => {
    const result = await gleaner(args, env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('creates, updates, lists and deletes feeds', async () => {
    const user = parse((await gleaner(['users', 'create', '--name', 'Publisher', '--json'], env)).stdout);
    const created = parse((await gleaner(['feeds', 'create', '--user', user.id, '--title', 'Links', '--tags', 'AWS,#reading', '--json'], env)).stdout);
    expect(created).toEqual({
      id: expect.any(String),
      title: 'Links',
      description: null,
      tags: ['aws', 'reading'],
      match: 'any',
      sharing: 'private',
      json_url: `${t.stack.baseUrl}/api/v2/publisher/feeds/${created.id}/public`,
      rss_url: `${t.stack.baseUrl}/api/v2/publisher/feeds/${created.id}/rss`,
    });
    expect((await contractFetch(created.json_url)).status).toBe(404);

    const updated = parse((await gleaner(['feeds', 'update', created.id, '--sharing', 'public', '--match', 'all', '--description', 'Mine', '--json'], env)).stdout);
    expect(updated).toMatchObject({ id: created.id, sharing: 'public', match: 'all', description: 'Mine', tags: ['aws', 'reading'] });
    expect((await contractFetch(created.rss_url)).status).toBe(200);

    expect(parse((await gleaner(['feeds', 'list', '--user', user.id, '--json'], env)).stdout)).toEqual({ feeds: [updated] });
    expect(parse((await gleaner(['feeds', 'delete', created.id, '--json'], env)).stdout)).toEqual({ id: created.id, deleted: true });
    expect((await contractFetch(created.json_url)).status).toBe(404);
    expect((await gleaner(['feeds', 'delete', created.id, '--json'], env)).stderr).toMatch(/no feed with id/);
  });

  it.each([
    [['users', 'create', '--plan', 'gold', '--name', 'x'], 'gleaner: --plan must be free or pro'],
    [['feeds', 'create', '--user', 'u', '--title', 'No tags'], 'gleaner: --tags is required'],
    [['feeds', 'create', '--user', 'u', '--title', 'No tags', '--tags', ' , '], 'gleaner: a feed needs at least one tag'],
    [['feeds', 'frobnicate'], 'gleaner: unknown command "feeds frobnicate"; feeds takes create, update, list, delete'],
    [['frobnicate'], 'gleaner: unknown command "frobnicate"; the commands are users, tokens, notes, bookmarks, feeds'],
    [['feeds'], 'gleaner: "feeds" needs one of create, update, list, delete'],
    [['feeds', 'list', '--colour'], 'gleaner: unknown option --colour'],
    [['feeds', 'list', '--user'], 'gleaner: --user needs a value'],
    [[], 'gleaner: no command given'],
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
    expect(user).toMatch(/^id: {7}[0-9a-f-]{36}\nname: {5}Reader\nplan: {5}free\nnote_cap: 1000\n$/);
    const userId = /^id: +(\S+)/.exec(user)![1]!;
    await gleaner(['feeds', 'create', '--user', userId, '--title', 'Reading', '--tags', 'reading,aws'], env);
    await gleaner(['feeds', 'create', '--user', userId, '--title', 'Later', '--tags', 'later', '--sharing', 'public'], env);
    const lines = (await gleaner(['feeds', 'list', '--user', userId], env)).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +title +description +tags +match +sharing +json_url +rss_url$/);
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
    const result = await gleaner(['notes', 'get', 'x', '--json'], { GLEANER_DATA_DIR: join(tmpdir(), 'gleaner-nothing-here') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/npm start/);
  });
});
