import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_MODEL } from '../../functions/adapters/search/embedders';
import { searchIndexFolder, writeLocalState } from '../../local/state';
import { gleanerInProcess as gleaner } from '../support/cli';
import { json, startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gleaner-search-cli-'));
  t = await startTestStack({}, { searchIndexUri: searchIndexFolder(dataDir) });
  writeLocalState(dataDir, {
    pid: process.pid,
    baseUrl: t.stack.baseUrl,
    dynamoEndpoint: t.table.endpoint,
    tableName: t.table.tableName,
  });
  env = { GLEANER_DATA_DIR: dataDir };
}, 60_000);
afterAll(async () => {
  await t?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('gleaner search', () => {
  it('answers JSON with marked snippets and the mode that ran, and a table for people', async () => {
    const { user, token } = await t.createUser();
    const saved = await json(
      await t.save(token, {
        url: 'https://volcano.example/',
        title: 'Shield volcanoes',
        selection: 'Basalt lava flows far.',
      }),
    );
    // The save reaches the index moments later, its vectors (the built-in model, with nothing
    // configured) just after: wait for them, then check the answer.
    const answer = await vi.waitFor(async () => {
      const run = await gleaner(['search', '--user', user.id, 'basalt lava', '--mode', 'hybrid', '--json'], env);
      expect(run.code).toBe(0);
      const found = JSON.parse(run.stdout) as { results: { note_id: string; snippet: string }[]; mode: string };
      expect(found.results).not.toHaveLength(0);
      expect(found.mode).toBe('hybrid');
      return found;
    }, 30_000);
    expect(answer).toMatchObject({
      results: [{ note_id: saved.note_id, title: 'Shield volcanoes', url: 'https://volcano.example/', tags: [] }],
      cursor: null,
      mode: 'hybrid',
      model: BUILT_IN_MODEL,
    });
    expect(answer.results[0]!.snippet).toBe('**Basalt** **lava** flows far.');
    // By meaning: no word in common with the note. The page worker's visit changes the note after the
    // save and its new version is embedded moments later: wait for it.
    await vi.waitFor(async () => {
      const meaning = await gleaner(['search', '--user', user.id, 'molten rock eruptions', '--json'], env);
      expect(JSON.parse(meaning.stdout)).toMatchObject({ mode: 'hybrid', results: [{ note_id: saved.note_id }] });
    }, 30_000);
    const table = await gleaner(['search', '--user', user.id, 'basalt', '--mode', 'keyword'], env);
    expect(table.stdout).toMatch(
      /Shield volcanoes <https:\/\/volcano\.example\/> +\*\*Basalt\*\* lava flows far\.\nmode: keyword\n/,
    );
    await vi.waitFor(async () => {
      const hybrid = await gleaner(['search', '--user', user.id, 'basalt'], env);
      expect(hybrid.stdout).toContain(`mode: hybrid (model ${BUILT_IN_MODEL})`);
    }, 30_000);
  }, 120_000);

  it.each([
    [['search', '--user', 'USER', ''], /empty/],
    [['search', '--user', 'USER', 'x'.repeat(1001)], /at most 1000/],
    [['search', '--user', 'USER', 'after:2024-13-01'], /not a date/],
    [['search', '--user', 'USER', 'x', '--limit', '0'], /limit must be/],
    [['search', '--user', 'USER', 'x', '--limit', '101'], /limit must be/],
    [['search', '--user', 'USER', 'x', '--mode', 'magic'], /mode must be/],
    [['search', '--user', 'USER', 'x', '--cursor', 'forged'], /cursor/],
  ])('exits 2 for bad input %#', async (args, message) => {
    const { user } = await t.createUser();
    const run = await gleaner(
      args.map((arg) => (arg === 'USER' ? user.id : arg)),
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('exits 1 for a user that does not exist, and never fails on hostile queries', async () => {
    const missing = await gleaner(['search', '--user', '00000000-0000-4000-8000-000000000000', 'x'], env);
    expect(missing.code).toBe(1);
    const { user } = await t.createUser();
    for (const query of ['"unbalanced', '- -- -#', "' OR 1=1 --", '!?.,;:'.repeat(166)]) {
      const run = await gleaner(['search', '--user', user.id, query, '--json'], env);
      expect([0, 2], `${query}: ${run.stderr}`).toContain(run.code);
    }
  }, 60_000);

  it('reindex rebuilds one user or everything', async () => {
    const { user } = await t.createUser();
    expect(JSON.parse((await gleaner(['reindex', '--user', user.id, '--json'], env)).stdout)).toEqual({
      indexed: 0,
      user_id: user.id,
    });
    const all = await gleaner(['reindex', '--json'], env);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).indexed).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
