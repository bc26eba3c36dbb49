import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, signedInUser } from '../support/owner';

/**
 * Links and backlinks through the local stack: saves and edits go through the API, the table's stream
 * is read by the local poller, whose consumer keeps the links, and `GET /api/v2/me/notes/{id}` shows
 * them (its answers checked against openapi-v2.json). Two users link to the same titles and URL.
 */

let t: TestStack;
let folder: string;
let alice: Owner;
let bob: Owner;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-links-'));
  t = await startTestStack(
    { OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' },
    { searchIndexUri: join(folder, 'index') },
  );
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function save(owner: Owner, url: string, title: string, comment?: string): Promise<string> {
  const response = await t.save(owner.token, { url, title, ...(comment ? { selection: 'A quote.', comment } : {}) });
  expect(response.status).toBe(200);
  return (await json(response)).note_id as string;
}

interface NoteLinks {
  links: { kind: string; target: string; note: { id: string; title: string } | null; context: string }[];
  backlinks: { note: { id: string; title: string }; context: string }[];
}

async function note(owner: Owner, noteId: string): Promise<NoteLinks> {
  const response = await owner.api(`/api/v2/me/notes/${noteId}`);
  expect(response.status).toBe(200);
  return json(response);
}

/** What a note links to (target → note id, null while waiting), once the stream has caught up. */
const linkTargets = async (owner: Owner, noteId: string) =>
  (await note(owner, noteId)).links.map((link) => [link.target, link.note?.id ?? null]);
const backlinkIds = async (owner: Owner, noteId: string) =>
  (await note(owner, noteId)).backlinks.map((link) => link.note.id).sort();
const eventually = { timeout: 10_000, interval: 100 };

describe('links between notes through the API', () => {
  it("links by [[title]] in a save's comment and by a saved URL in an edited comment, never to another user's notes", async () => {
    const target = await save(alice, 'https://example.com/queues', 'Queues in practice');
    const byTitle = await save(
      alice,
      'https://example.com/a1',
      'Notes on load',
      'Compare [[queues in PRACTICE]] today.',
    );
    const byUrl = await save(alice, 'https://example.com/a2', 'Reading list');
    const edited = await alice.api(`/api/v2/me/notes/${byUrl}`, {
      method: 'PATCH',
      body: { comment: 'Read https://EXAMPLE.com/queues?utm_source=news first.' },
    });
    expect(edited.status).toBe(200);
    const bobTarget = await save(bob, 'https://example.com/queues', 'Queues in practice');
    const bobSource = await save(bob, 'https://example.com/b1', 'Bob on queues', 'See [[Queues in practice]].');

    await expect.poll(() => backlinkIds(alice, target), eventually).toEqual([byTitle, byUrl].sort());
    const answer = await note(alice, target);
    expect(answer.backlinks).toContainEqual({
      note: { id: byTitle, title: 'Notes on load' },
      context: 'Compare queues in PRACTICE today.',
    });
    expect(answer.backlinks).toContainEqual({
      note: { id: byUrl, title: 'Reading list' },
      context: 'Read https://EXAMPLE.com/queues?utm_source=news first.',
    });
    expect((await note(alice, byTitle)).links).toEqual([
      {
        kind: 'title',
        target: 'queues in PRACTICE',
        note: { id: target, title: 'Queues in practice' },
        context: 'Compare queues in PRACTICE today.',
      },
    ]);
    expect(await linkTargets(alice, byUrl)).toEqual([['https://EXAMPLE.com/queues?utm_source=news', target]]);

    // Bob's links resolve to Bob's notes; his notes are never Alice's backlinks, nor hers his.
    await expect.poll(() => backlinkIds(bob, bobTarget), eventually).toEqual([bobSource]);
    expect(await linkTargets(bob, bobSource)).toEqual([['Queues in practice', bobTarget]]);
    expect(await backlinkIds(alice, target)).not.toContain(bobSource);
    expect((await bob.api(`/api/v2/me/notes/${target}`)).status).toBe(404);
    expect((await alice.api(`/api/v2/me/notes/${bobTarget}`)).status).toBe(404);
  });

  it('keeps a link waiting until its target is saved, and waiting again when the target is deleted', async () => {
    const source = await save(
      alice,
      'https://example.com/plan',
      'Plan',
      'Next: [[Deep work]], then https://example.com/deep.',
    );
    // Bob's note of that title and page is no target for Alice's links.
    await save(bob, 'https://example.com/deep', 'Deep work');
    expect(await linkTargets(alice, source)).toEqual([
      ['Deep work', null],
      ['https://example.com/deep', null],
    ]);

    const target = await save(alice, 'https://example.com/deep', 'Deep Work');
    await expect
      .poll(() => linkTargets(alice, source), eventually)
      .toEqual([
        ['Deep work', target],
        ['https://example.com/deep', target],
      ]);
    await expect.poll(() => backlinkIds(alice, target), eventually).toEqual([source]);

    expect((await alice.api(`/api/v2/me/notes/${target}`, { method: 'DELETE' })).status).toBe(204);
    expect(await linkTargets(alice, source)).toEqual([
      ['Deep work', null],
      ['https://example.com/deep', null],
    ]);
    // Renamed, a note answers to its new title only.
    const renamed = await save(alice, 'https://example.com/other', 'Shallow work');
    await alice.api(`/api/v2/me/notes/${renamed}`, { method: 'PATCH', body: { title: 'Deep work' } });
    await expect
      .poll(() => linkTargets(alice, source), eventually)
      .toEqual([
        ['Deep work', renamed],
        ['https://example.com/deep', null],
      ]);
    await alice.api(`/api/v2/me/notes/${renamed}`, { method: 'PATCH', body: { title: 'Shallow again' } });
    await expect
      .poll(() => linkTargets(alice, source), eventually)
      .toEqual([
        ['Deep work', null],
        ['https://example.com/deep', null],
      ]);
  });
});
