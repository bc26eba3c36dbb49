import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { itemsOf, type Owner, savedPage, signedInUser, tableItems } from '../support/owner';

/**
 * Reading states over real sockets: archiving and starring a note through the per-user API, the
 * inbox, archive and starred lists, the states in the export, and another user's notes refused.
 * Answers are checked against openapi-v2.json (contractFetch).
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;

beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
});
afterAll(() => t.stop());

const savePage = (owner: Owner, url: string, extra: Record<string, unknown> = {}) => savedPage(t, owner, url, extra);

const idsOf = (page: { notes: { id: string }[] }) => page.notes.map((note) => note.id);
const edit = (owner: Owner, noteId: string, body: unknown) =>
  owner.api(`/api/v2/me/notes/${noteId}`, { method: 'PATCH', body });

describe('reading states', () => {
  it('archives and stars a note, keeping its update time, and lists the inbox, archive and starred notes', async () => {
    const owner = await signedInUser(t);
    const [one, two, three] = [
      await savePage(owner, 'https://example.com/r1', { comment: '#reading' }),
      await savePage(owner, 'https://example.com/r2', { comment: '#reading' }),
      await savePage(owner, 'https://example.com/r3'),
    ];
    const fresh = await json(await owner.api(`/api/v2/me/notes/${one}`));
    expect(fresh).toMatchObject({ archived: false, archived_at: null, starred: false, starred_at: null });

    const archived = await edit(owner, one, { archived: true });
    expect(archived.status).toBe(200);
    const note = await json(archived);
    expect(note).toMatchObject({ archived: true, starred: false, updated: fresh.updated });
    expect(Date.parse(note.archived_at)).toBeGreaterThanOrEqual(Date.parse(fresh.updated));
    expect(note.version).toBe(fresh.version + 1);
    // Asking again keeps the time it was archived.
    expect((await json(await edit(owner, one, { archived: true }))).archived_at).toBe(note.archived_at);
    await edit(owner, three, { archived: true, starred: true });
    await edit(owner, two, { starred: true });

    const list = async (query: string) => idsOf(await json(await owner.api(`/api/v2/me/notes?${query}`)));
    expect(await list('archived=false')).toEqual([two]);
    // The archive and the starred list: most recently archived (starred) first.
    expect(await list('archived=true')).toEqual([three, one]);
    expect(await list('starred=true')).toEqual([two, three]);
    expect(await list('starred=true&archived=true')).toEqual([three]);
    expect(await list('starred=false')).toEqual([one]);
    expect(await list('archived=true&tag=reading')).toEqual([one]);
    expect(await list('archived=false&tag=reading')).toEqual([two]);
    expect((await list('')).sort()).toEqual([one, two, three].sort());

    // Back to the inbox, unstarred: out of those lists.
    const back = await json(await edit(owner, three, { archived: false, starred: false }));
    expect(back).toMatchObject({ archived: false, archived_at: null, starred: false, starred_at: null });
    expect(await list('archived=true')).toEqual([one]);
    expect(await list('starred=true')).toEqual([two]);
    expect((await list('archived=false')).sort()).toEqual([two, three].sort());
    // A save of an archived page keeps it archived.
    await savePage(owner, 'https://example.com/r1', { selection: 'read again' });
    expect((await json(await owner.api(`/api/v2/me/notes/${one}`))).archived).toBe(true);

    // Deleting a note takes its archived and starred entries with it.
    await edit(owner, one, { starred: true });
    const stateItems = async () => itemsOf(await tableItems(t), one).filter((item) => item.type === 'NoteState');
    expect(await stateItems()).toHaveLength(2);
    expect((await owner.api(`/api/v2/me/notes/${one}`, { method: 'DELETE' })).status).toBe(204);
    expect(await stateItems()).toEqual([]);
    expect(await list('archived=true')).toEqual([]);
  });

  it('pages a filtered list with its cursor, past the notes it leaves out', async () => {
    const owner = await signedInUser(t);
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) ids.push(await savePage(owner, `https://example.com/p${index}`));
    // Archive every other one: the inbox interleaves with the archive in the notes index.
    for (const id of ids.filter((_, index) => index % 2 === 0)) await edit(owner, id, { archived: true });
    const inbox: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { notes: { id: string }[]; next_cursor: string | null } = await json(
        await owner.api(`/api/v2/me/notes?archived=false&limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      );
      expect(page.notes.length).toBeLessThanOrEqual(2);
      inbox.push(...idsOf(page));
      cursor = page.next_cursor;
    } while (cursor);
    expect(inbox).toEqual(ids.filter((_, index) => index % 2 === 1).reverse());
  });

  it('refuses bad states and filters with the contract’s 422', async () => {
    const noteId = await savePage(alice, 'https://example.com/bad-state');
    const refused = await edit(alice, noteId, { archived: 'yes', starred: 1 });
    expect(refused.status).toBe(422);
    expect((await json(refused)).detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'archived'],
        ['body', 'starred'],
      ]),
    );
    const badQuery = await alice.api('/api/v2/me/notes?archived=maybe');
    expect(badQuery.status).toBe(422);
    expect((await json(badQuery)).detail[0].loc).toEqual(['query', 'archived']);
    expect((await alice.api('/api/v2/me/notes?starred=1')).status).toBe(422);
    expect((await json(await alice.api(`/api/v2/me/notes/${noteId}`))).archived).toBe(false);
  });

  it("answers 404 for another user's note and never lists it", async () => {
    const theirs = await savePage(bob, 'https://example.com/bobs-state', { comment: '#private' });
    await edit(bob, theirs, { starred: true, archived: true });
    for (const body of [{ archived: true }, { starred: false }, { archived: false, starred: false }]) {
      const response = await edit(alice, theirs, body);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain(theirs);
    }
    for (const query of ['archived=true', 'starred=true', 'archived=false', 'starred=true&archived=true'])
      expect(await (await alice.api(`/api/v2/me/notes?${query}`)).text()).not.toContain(theirs);
    expect(await json(await bob.api(`/api/v2/me/notes/${theirs}`))).toMatchObject({ archived: true, starred: true });
  });

  it('carries each bookmark’s states in the export', async () => {
    const owner = await signedInUser(t);
    const noteId = await savePage(owner, 'https://example.com/exported-state');
    await savePage(owner, 'https://example.com/exported-plain');
    const starred = await json(await edit(owner, noteId, { starred: true, archived: true }));
    const exported = await json(await owner.api('/api/v2/me/export'));
    const byUrl = new Map(exported.bookmarks.map((bookmark: { url: string }) => [bookmark.url, bookmark]));
    expect(byUrl.get('https://example.com/exported-state')).toMatchObject({
      archived: true,
      archived_at: starred.archived_at,
      starred: true,
      starred_at: starred.starred_at,
    });
    expect(byUrl.get('https://example.com/exported-plain')).toMatchObject({
      archived: false,
      archived_at: null,
      starred: false,
      starred_at: null,
    });
  });
});

describe('bulk actions', () => {
  const bulk = (owner: Owner, body: unknown) => owner.api('/api/v2/me/notes', { method: 'PATCH', body });

  it("archives, stars, tags, untags and deletes many notes, answering another user's ids as unknown ones", async () => {
    const owner = await signedInUser(t);
    const mine = [
      await savePage(owner, 'https://example.com/b1', { comment: '#keep' }),
      await savePage(owner, 'https://example.com/b2'),
    ];
    const theirs = await savePage(bob, 'https://example.com/bobs-bulk', { comment: '#bob' });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bobBefore = await json(await bob.api(`/api/v2/me/notes/${theirs}`));

    for (const [action, extra] of [
      ['archive', {}],
      ['star', {}],
      ['tag', { tags: ['#Batch', 'later'] }],
      ['untag', { tags: ['keep'] }],
    ] as const) {
      const response = await bulk(owner, { ids: [...mine, theirs, unknown, mine[0]], action, ...extra });
      expect(response.status, action).toBe(200);
      const { results } = await json(response);
      expect(results, action).toEqual([
        { id: mine[0], status: 'done' },
        { id: mine[1], status: 'done' },
        { id: theirs, status: 'not_found' },
        { id: unknown, status: 'not_found' },
      ]);
    }
    for (const id of mine)
      expect(await json(await owner.api(`/api/v2/me/notes/${id}`))).toMatchObject({
        archived: true,
        starred: true,
        tags: expect.arrayContaining(['batch', 'later']),
      });
    expect((await json(await owner.api(`/api/v2/me/notes/${mine[0]}`))).tags).not.toContain('keep');
    // Bob's note is as it was: not archived, starred or tagged.
    expect(await json(await bob.api(`/api/v2/me/notes/${theirs}`))).toEqual(bobBefore);

    const deleted = await json(await bulk(owner, { ids: [mine[1], theirs], action: 'delete' }));
    expect(deleted.results).toEqual([
      { id: mine[1], status: 'done' },
      { id: theirs, status: 'not_found' },
    ]);
    expect((await owner.api(`/api/v2/me/notes/${mine[1]}`)).status).toBe(404);
    expect((await bob.api(`/api/v2/me/notes/${theirs}`)).status).toBe(200);
  });

  it('refuses more than 100 ids, malformed ids, unknown actions and tagging without tags with 422', async () => {
    const noteId = await savePage(alice, 'https://example.com/bulk-bad');
    const ids = Array.from({ length: 101 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
    const cases: [unknown, unknown[]][] = [
      [{ ids, action: 'archive' }, ['body', 'ids']],
      [{ ids: [], action: 'archive' }, ['body', 'ids']],
      [{ ids: [noteId, 'not-a-uuid'], action: 'archive' }, ['body', 'ids', 1]],
      [{ ids: [noteId], action: 'burn' }, ['body', 'action']],
      [{ ids: [noteId], action: 'tag' }, ['body', 'tags']],
      [{ ids: [noteId], action: 'untag', tags: ['a b'] }, ['body', 'tags', 0]],
    ];
    for (const [body, loc] of cases) {
      const response = await bulk(alice, body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect((await json(response)).detail.map((issue: { loc: unknown[] }) => issue.loc)).toContainEqual(loc);
    }
    expect((await json(await alice.api(`/api/v2/me/notes/${noteId}`))).archived).toBe(false);
  });
});

describe('the Library’s forms (no script)', () => {
  function post(owner: Owner, form: [string, string][], path = '/library') {
    return fetch(`${t.stack.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: owner.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }
  const page = async (owner: Owner, path: string) =>
    (await fetch(`${t.stack.baseUrl}${path}`, { headers: { Cookie: owner.cookie } })).text();

  it('archives and stars from a note’s buttons and in bulk, then redirects back to the view it came from', async () => {
    const owner = await signedInUser(t);
    const [one, two, three] = [
      await savePage(owner, 'https://example.com/f1'),
      await savePage(owner, 'https://example.com/f2'),
      await savePage(owner, 'https://example.com/f3'),
    ];
    const inbox = await page(owner, '/library');
    for (const id of [one, two, three]) expect(inbox).toContain(`value="archive ${id}"`);

    const archived = await post(owner, [
      ['csrf', owner.csrfToken],
      ['return', '/library?view=starred'],
      ['apply', `archive ${one}`],
      // The selection rides along with a note's own button, and is left alone.
      ['ids', two],
      ['action', 'delete'],
    ]);
    expect(archived.status).toBe(303);
    expect(archived.headers.get('Location')).toBe('/library?view=starred&notice=archived');
    expect(await page(owner, '/library?view=archive')).toContain(`value="unarchive ${one}"`);
    expect(await page(owner, '/library')).not.toContain(`value="archive ${one}"`);
    expect((await owner.api(`/api/v2/me/notes/${two}`)).status).toBe(200);

    const starred = await post(owner, [
      ['csrf', owner.csrfToken],
      ['return', `/library/notes/${two}`],
      ['apply', `star ${two}`],
    ]);
    expect(starred.headers.get('Location')).toBe(`/library/notes/${two}?notice=starred`);
    const notePage = await page(owner, `/library/notes/${two}`);
    expect(notePage).toContain(`value="unstar ${two}"`);
    expect(notePage).toContain('In the inbox · starred');

    const bulkArchive = await post(owner, [
      ['csrf', owner.csrfToken],
      ['return', '/library'],
      ['action', 'archive'],
      ['ids', two],
      ['ids', three],
    ]);
    expect(bulkArchive.headers.get('Location')).toBe('/library?notice=archived');
    const archive = await page(owner, '/library?view=archive');
    for (const id of [one, two, three]) expect(archive).toContain(`value="unarchive ${id}"`);
    expect(await page(owner, '/library')).toContain('your inbox is empty');
    // Somewhere else than this site is never where a form goes back to.
    const offsite = await post(owner, [
      ['csrf', owner.csrfToken],
      ['return', '//evil.example/'],
      ['apply', `unarchive ${one}`],
    ]);
    expect(offsite.headers.get('Location')).toBe('/library?notice=unarchived');
  });

  it("answers 404 for another user's note, says what the bulk form could not do, and needs the CSRF token", async () => {
    const theirs = await savePage(bob, 'https://example.com/bobs-form');
    const mine = await savePage(alice, 'https://example.com/alices-form');
    const single = await post(alice, [
      ['csrf', alice.csrfToken],
      ['apply', `archive ${theirs}`],
    ]);
    expect(single.status).toBe(404);
    expect(await single.text()).not.toContain('bobs-form');
    const bulk = await post(alice, [
      ['csrf', alice.csrfToken],
      ['return', '/library'],
      ['action', 'star'],
      ['ids', theirs],
      ['ids', mine],
    ]);
    expect(bulk.headers.get('Location')).toBe('/library?notice=partly');
    expect(await json(await bob.api(`/api/v2/me/notes/${theirs}`))).toMatchObject({ archived: false, starred: false });
    expect((await json(await alice.api(`/api/v2/me/notes/${mine}`))).starred).toBe(true);

    const nothingSelected = await post(alice, [
      ['csrf', alice.csrfToken],
      ['action', 'archive'],
    ]);
    expect(nothingSelected.status).toBe(422);
    expect(await nothingSelected.text()).toContain('Select the notes to change first.');
    const forged = await post(alice, [['apply', `archive ${mine}`]]);
    expect(forged.status).toBe(403);
    expect((await json(await alice.api(`/api/v2/me/notes/${mine}`))).archived).toBe(false);
    const deleted = await post(alice, [
      ['csrf', alice.csrfToken],
      ['return', '/library?view=all'],
      ['action', 'delete'],
      ['ids', mine],
      ['ids', theirs],
    ]);
    expect(deleted.headers.get('Location')).toBe('/library?view=all&notice=partly');
    // Deleting in bulk moves the notes to the Trash, which can take them back: no box to tick.
    expect((await alice.api(`/api/v2/me/notes/${mine}`)).status).toBe(404);
    expect((await json(await alice.api('/api/v2/me/trash'))).notes.map((note: { id: string }) => note.id)).toEqual([
      mine,
    ]);
    expect((await bob.api(`/api/v2/me/notes/${theirs}`)).status).toBe(200);
  });
});
