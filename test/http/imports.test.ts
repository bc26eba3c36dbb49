import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_CHUNK_LINKS } from '../../functions/core/import/chunks';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, oauthAccessToken, signedInUser } from '../support/owner';
import { pocketZip } from '../support/save-ports';

/**
 * Imports through the per-user API and the import worker over real sockets: the file uploaded to
 * the upload URL (the local stack plays S3's presigned PUT), the import started and read back as the
 * worker runs it in chunks through the in-process queue. Two users: neither sees the other's import.
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/import');

let t: TestStack;
let alice: Owner;
let bob: Owner;

beforeAll(async () => {
  // The workers run (the import's); the sweeper's schedule does not come round during the tests.
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60' }, { startWorkers: true, scheduleEverySeconds: 3600 });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
});
afterAll(() => t.stop());

/** Makes the import, PUTs the file to its upload URL and starts it; the answers. */
async function startImport(owner: Owner, name: string, bytes: Uint8Array) {
  const created = await owner.api('/api/v2/me/imports', { method: 'POST', body: { file_name: name } });
  expect(created.status).toBe(201);
  const { import: made, upload } = await json(created);
  expect(made).toMatchObject({ status: 'uploading', file_name: name, done: 0 });
  const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: bytes });
  expect(put.status).toBe(200);
  const started = await owner.api(`/api/v2/me/imports/${made.id}/start`, { method: 'POST' });
  expect(started.status).toBe(202);
  return { id: made.id as string, started: await json(started) };
}

/** Reads the import until it is done or failed. */
async function finished(owner: Owner, id: string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const read = await json(await owner.api(`/api/v2/me/imports/${id}`));
    if (read.status === 'done' || read.status === 'failed') return read;
    if (Date.now() > deadline) throw new Error(`import ${id} still ${read.status}: ${JSON.stringify(read)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const fixtureFile = (fixture: string, name: string) => new Uint8Array(readFileSync(join(FIXTURES, fixture, name)));

function fixtureZip(fixture: string): Uint8Array {
  const dir = join(FIXTURES, fixture);
  const walk = (path: string): string[] =>
    statSync(path).isDirectory() ? readdirSync(path).flatMap((entry) => walk(join(path, entry))) : [path];
  const files = walk(dir).filter((path) => !path.endsWith('expected.json'));
  return zipSync(Object.fromEntries(files.map((path) => [relative(dir, path), new Uint8Array(readFileSync(path))])));
}

const expectedReport = (fixture: string) =>
  JSON.parse(readFileSync(join(FIXTURES, fixture, 'expected.json'), 'utf8')).report;

// The worker's saves take their time on a loaded machine: the tests wait for the import's end, not a clock.
describe('an import through the API', { timeout: 180_000 }, () => {
  it('imports a fixture as the CLI does: the same counts and skipped rows, each note once', async () => {
    const { id, started } = await startImport(
      alice,
      'instapaper-export.csv',
      fixtureFile('instapaper', 'instapaper-export.csv'),
    );
    expect(started.status).toBe('queued');
    const report = await finished(alice, id);
    const expected = expectedReport('instapaper');
    expect(report).toMatchObject({
      status: 'done',
      format: expected.format,
      rows: expected.rows,
      imported: expected.imported,
      merged: 0,
      highlights: expected.highlights,
      skipped_count: expected.skipped.length,
      skipped: expected.skipped,
      notices: expected.notices,
      error: null,
      // Every new note's page waits in the outbox: the sweeper hands them out a bounded batch at a time.
      enrichment_waiting: expected.imported,
    });
    expect(report.done).toBe(report.links);
    const notes = await json(await alice.api('/api/v2/me/notes?limit=100'));
    expect(notes.notes).toHaveLength(expected.imported);
    // The sweep hands a bounded batch (here all four) to the page worker: none waits any more.
    expect(await t.stack.runScheduledTask('EnrichmentSweeper')).toMatchObject({ released: expected.imported });
    expect((await json(await alice.api(`/api/v2/me/imports/${id}`))).enrichment_waiting).toBe(0);
    // Bob's workspace is untouched, and Alice's import is not his to read.
    expect((await json(await bob.api('/api/v2/me/notes'))).notes).toHaveLength(0);
    expect((await bob.api(`/api/v2/me/imports/${id}`)).status).toBe(404);
    expect((await bob.api(`/api/v2/me/imports/${id}/start`, { method: 'POST' })).status).toBe(404);
    expect((await json(await bob.api('/api/v2/me/imports'))).imports).toEqual([]);
    expect(
      (await json(await alice.api('/api/v2/me/imports'))).imports.map((listed: { id: string }) => listed.id),
    ).toContain(id);
  });

  it('imports the same export again as a zip and finds nothing new', async () => {
    const { id } = await startImport(bob, 'pocket.zip', fixtureZip('pocket-2025'));
    const first = await finished(bob, id);
    const expected = expectedReport('pocket-2025');
    expect(first).toMatchObject({
      status: 'done',
      format: 'pocket',
      imported: expected.imported,
      highlights: expected.highlights,
    });
    const again = await finished(bob, (await startImport(bob, 'pocket.zip', fixtureZip('pocket-2025'))).id);
    expect(again).toMatchObject({
      status: 'done',
      imported: 0,
      merged: expected.imported,
      highlights: 0,
      enrichment_waiting: 0,
    });
  });

  it(`runs a large export in chunks of ${IMPORT_CHUNK_LINKS} links, every link once`, async () => {
    const rows = IMPORT_CHUNK_LINKS * 2 + 17;
    const owner = await signedInUser(t);
    const report = await finished(owner, (await startImport(owner, 'pocket.zip', pocketZip(rows))).id);
    expect(report).toMatchObject({ status: 'done', rows, links: rows, done: rows, imported: rows, merged: 0 });
    const items = await t.bookmarks.listBookmarks(owner.user.id, {}, { limit: 1000 });
    expect(items.items).toHaveLength(rows);
  });

  it('refuses a second import while one is under way (409, naming it), and starts the next once it is done', async () => {
    const owner = await signedInUser(t);
    const first = await json(await owner.api('/api/v2/me/imports', { method: 'POST', body: { file_name: 'a.csv' } }));
    const second = await owner.api('/api/v2/me/imports', { method: 'POST', body: { file_name: 'b.csv' } });
    expect(second.status).toBe(409);
    expect((await json(second)).detail).toMatchObject({ code: 'import_in_progress', import_id: first.import.id });
    // Another account is not held up by it.
    const other = await signedInUser(t);
    expect((await other.api('/api/v2/me/imports', { method: 'POST', body: { file_name: 'c.csv' } })).status).toBe(201);
    // Starting before the file is uploaded is refused; once uploaded and done, the account is free again.
    expect((await owner.api(`/api/v2/me/imports/${first.import.id}/start`, { method: 'POST' })).status).toBe(409);
    await fetch(first.upload.url, { method: 'PUT', body: fixtureFile('instapaper', 'instapaper-export.csv') });
    expect((await owner.api(`/api/v2/me/imports/${first.import.id}/start`, { method: 'POST' })).status).toBe(202);
    await finished(owner, first.import.id);
    expect((await owner.api(`/api/v2/me/imports/${first.import.id}/start`, { method: 'POST' })).status).toBe(409);
    expect((await owner.api('/api/v2/me/imports', { method: 'POST', body: { file_name: 'b.csv' } })).status).toBe(201);
  });

  it('keeps Readwise books that match no document as notes without a bookmark, listed; their highlights edited like any note’s, by their owner alone', async () => {
    const [reader, other] = await Promise.all([signedInUser(t), signedInUser(t)]);
    const csv = fixtureFile('readwise', 'readwise-highlights.csv');
    const report = await finished(reader, (await startImport(reader, 'readwise-highlights.csv', csv)).id);
    expect(report).toMatchObject({
      status: 'done',
      imported: 0,
      notes: 3,
      highlights: 5,
      enrichment_waiting: 0,
      notes_without_bookmark: [
        { row: 1, title: 'Small Bets', highlights: 2 },
        { row: 3, title: 'The Printed Book', highlights: 2 },
        { row: 6, title: 'Büchertage', highlights: 1 },
      ],
    });
    const listed = (await json(await reader.api('/api/v2/me/notes'))).notes as {
      id: string;
      title: string;
      url: null;
    }[];
    const book = listed.find((found) => found.title === 'The Printed Book')!;
    expect(book.url).toBeNull();
    const path = `/api/v2/me/notes/${book.id}`;
    const [first] = (await json(await reader.api(path))).highlights;
    // Another user's note ids answer 404, for reading and for changing a highlight.
    expect((await other.api(path)).status).toBe(404);
    const highlight = `${path}/highlights/${first.id}`;
    expect((await other.api(highlight, { method: 'PATCH', body: { comment: 'mine' } })).status).toBe(404);
    expect((await other.api(highlight, { method: 'DELETE' })).status).toBe(404);
    expect((await reader.api(highlight, { method: 'PATCH', body: { comment: 'Read aloud' } })).status).toBe(200);
    expect((await json(await reader.api(path))).body).toContain('> From a paper book\n\nRead aloud');
    expect((await reader.api(highlight, { method: 'DELETE' })).status).toBe(204);
    const after = await json(await reader.api(path));
    expect(after.highlights.map((found: { quote: string }) => found.quote)).toEqual(['Ink dries slowly.']);
    expect(after.body).not.toContain('From a paper book');
    // The same file again adds nothing.
    const again = await finished(reader, (await startImport(reader, 'readwise-highlights.csv', csv)).id);
    expect(again).toMatchObject({ status: 'done', notes: 0, merged: 3 });
    expect((await json(await other.api('/api/v2/me/notes'))).notes).toHaveLength(0);
  });

  it('fails a file of no known format, naming the formats it knows', async () => {
    const owner = await signedInUser(t);
    const { id } = await startImport(owner, 'notes.txt', new TextEncoder().encode('just some words\n'));
    const report = await finished(owner, id);
    expect(report).toMatchObject({ status: 'failed', imported: 0 });
    expect(report.error).toMatch(/notes\.txt is not an export of a known format; Gleaner imports: a Pocket zip/);
  });

  it('takes an OAuth token with notes:write to import and notes:read to read, and answers 422 for a malformed id', async () => {
    const owner = await signedInUser(t);
    const reader = await oauthAccessToken(t, owner.user.id, ['notes:read']);
    const call = (token: string, path: string, method = 'GET', body?: unknown) =>
      fetch(`${t.stack.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await call(reader, '/api/v2/me/imports', 'POST', { file_name: 'x.csv' })).status).toBe(403);
    const writer = await oauthAccessToken(t, owner.user.id, ['notes:write']);
    expect((await call(writer, '/api/v2/me/imports', 'POST', { file_name: 'x.csv' })).status).toBe(201);
    expect((await call(reader, '/api/v2/me/imports')).status).toBe(200);
    expect((await call(reader, '/api/v2/me/imports/not-a-uuid')).status).toBe(422);
    expect((await call(writer, '/api/v2/me/imports', 'POST', { file_name: '' })).status).toBe(422);
  });
});
