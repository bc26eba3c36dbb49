import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { highlightsOfBody } from '../../functions/core/save/highlights';
import { savedAndFetched, startStackWithSite } from '../support/fixture-site';
import { json } from '../support/local-stack';
import { mcpClientOf, type Owner } from '../support/owner';
import { TIDES_ARTICLE } from '../support/tides-article';

/**
 * Highlights one by one through the per-user API and MCP, over real sockets: a passage of the kept
 * page added while reading (anchored by its TextQuoteSelector), its comment edited, one deleted, the
 * note's body changing with each in the same write. Two users; the other user's ids are 404s.
 */

let { t, alice, bob, origin, stop } = {} as Awaited<ReturnType<typeof startStackWithSite>>;

beforeAll(async () => {
  ({ t, alice, bob, origin, stop } = await startStackWithSite(
    (request, response) => {
      if (request.url?.startsWith('/tides'))
        return void response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(TIDES_ARTICLE);
      response.writeHead(404).end();
    },
    { OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' },
  ));
});
afterAll(() => stop?.());

/** A note of `owner` for `path` on the fixture site, once the page worker has been at it (kept or failed). */
async function savedNote(owner: Owner, path: string, extra: Record<string, unknown> = {}) {
  const saved = await savedAndFetched(t, owner, { url: `${origin}${path}`, title: 'Tides', ...extra });
  return saved.note_id as string;
}

const addHighlight = (owner: Owner, noteId: string, body: unknown) =>
  owner.api(`/api/v2/me/notes/${noteId}/highlights`, { method: 'POST', body });
const note = async (owner: Owner, noteId: string) => json(await owner.api(`/api/v2/me/notes/${noteId}`));

describe('adding a highlight while reading', () => {
  it('anchors the passage the prefix names among identical ones, and adds it as a save would (quote, comment, tags)', async () => {
    const noteId = await savedNote(alice, '/tides/one');
    const answer = await addHighlight(alice, noteId, {
      quote: ' The tide came in. ',
      // As the reader's script sends it: the page's text nodes, no white space between paragraphs.
      prefix: 'mean high water rising slowly.',
      suffix: ' By evening the flats',
      comment: 'The evening one #coast',
    });
    expect(answer.status).toBe(201);
    const highlight = await json(answer);
    expect(highlight).toMatchObject({
      quote: 'The tide came in.',
      comment: 'The evening one #coast',
      selector: { type: 'TextQuoteSelector', exact: 'The tide came in.' },
    });
    // The context is the kept text's: the second passage's, with the blank line before it.
    expect(highlight.selector.prefix).toMatch(/mean high water rising slowly\.\n\n$/);
    expect(highlight.selector.suffix).toMatch(/^ By evening the flats/);

    const whole = await note(alice, noteId);
    expect(whole.highlights).toEqual([highlight]);
    expect(whole.body.endsWith('> The tide came in.\n\nThe evening one #coast')).toBe(true);
    expect(whole.tags).toEqual(['coast']);

    // Without context, the first passage: the one with the harbour after it.
    const first = await json(await addHighlight(alice, noteId, { quote: 'The tide came in.' }));
    expect(first.selector.suffix).toMatch(/^ Fishermen in Harlingen/);
    expect((await note(alice, noteId)).highlights.map((found: { id: string }) => found.id)).toEqual([
      highlight.id,
      first.id,
    ]);
  });

  it('refuses, in the contract’s 422 shape and adding nothing, a quote the kept page does not hold, a context that is not its, a blank or over-long quote', async () => {
    const noteId = await savedNote(alice, '/tides/refusals');
    const before = await note(alice, noteId);
    const refusals: [unknown, string][] = [
      [{ quote: 'The tide went out.' }, 'selector_mismatch'],
      [{ quote: 'The tide came in.', prefix: 'Nowhere in the page ' }, 'selector_mismatch'],
      [{ quote: 'The tide came in.', suffix: ' Fishermen in Rotterdam' }, 'selector_mismatch'],
      [{ quote: '  \n ' }, 'missing'],
      [{ quote: 'x'.repeat(20_001) }, 'string_too_long'],
      [{ comment: 'no quote' }, 'missing'],
      [{ quote: 42 }, 'string_type'],
    ];
    for (const [body, type] of refusals) {
      const answer = await addHighlight(alice, noteId, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      const { detail } = await json(answer);
      expect(detail[0], JSON.stringify(body).slice(0, 80)).toMatchObject({ type });
      expect(detail[0].loc[0]).toBe('body');
      expect(typeof detail[0].msg).toBe('string');
    }
    expect(await note(alice, noteId)).toEqual(before);
  });

  it('adds an unanchored highlight to a note whose page could not be kept', async () => {
    const noteId = await savedNote(alice, '/missing-page');
    const answer = await addHighlight(alice, noteId, { quote: 'Something I remember', prefix: 'as said: ' });
    expect(answer.status).toBe(201);
    expect(await json(answer)).toMatchObject({
      quote: 'Something I remember',
      selector: { exact: 'Something I remember', prefix: 'as said: ', suffix: '' },
    });
  });

  it('answers note_too_large, adding nothing, when the note has no room left', async () => {
    const noteId = await savedNote(alice, '/tides/full');
    await t.table.doc.send(
      new UpdateCommand({
        TableName: t.table.tableName,
        Key: keys.note(noteId),
        UpdateExpression: 'SET body = :body, bodyBytes = :bytes',
        ExpressionAttributeValues: { ':body': 'x'.repeat(300 * 1024 - 10), ':bytes': 300 * 1024 - 10 },
      }),
    );
    const answer = await addHighlight(alice, noteId, { quote: 'The tide came in.' });
    expect(answer.status).toBe(422);
    expect((await json(answer)).detail).toEqual([
      {
        loc: ['body', 'quote'],
        msg: 'The note has reached its maximum size; nothing was added',
        type: 'note_too_large',
      },
    ]);
    expect((await note(alice, noteId)).highlights).toEqual([]);
  });
});

describe('one highlight edited or deleted', () => {
  it('changes its comment in its record and in the note body together, adding the comment’s tags', async () => {
    const noteId = await savedNote(alice, '/tides/edit', { selection: 'The tide came in.', comment: 'first' });
    await t.save(alice.token, { url: `${origin}/tides/edit`, selection: 'Scientists measure the range' });
    const [first, second] = (await note(alice, noteId)).highlights;
    const edited = await alice.api(`/api/v2/me/notes/${noteId}/highlights/${first.id}`, {
      method: 'PATCH',
      body: { comment: 'On second thought #tides' },
    });
    expect(edited.status).toBe(200);
    expect(await json(edited)).toMatchObject({ id: first.id, comment: 'On second thought #tides' });
    const after = await note(alice, noteId);
    expect(after.highlights.map((found: { comment: string | null }) => found.comment)).toEqual([
      'On second thought #tides',
      null,
    ]);
    expect(after.body).toContain('> The tide came in.\n\nOn second thought #tides\n\n> Scientists measure the range');
    expect(after.body).not.toContain('first');
    expect(after.tags).toContain('tides');

    // A comment given to the highlight that had none goes below its quote; null takes it away again.
    await alice.api(`/api/v2/me/notes/${noteId}/highlights/${second.id}`, {
      method: 'PATCH',
      body: { comment: 'Since 1843' },
    });
    expect((await note(alice, noteId)).body.endsWith('> Scientists measure the range\n\nSince 1843')).toBe(true);
    await alice.api(`/api/v2/me/notes/${noteId}/highlights/${second.id}`, { method: 'PATCH', body: { comment: null } });
    expect((await note(alice, noteId)).body.endsWith('> Scientists measure the range')).toBe(true);
  });

  it('deletes one highlight with its quote and comment, keeping the note and the others', async () => {
    const noteId = await savedNote(alice, '/tides/delete', { selection: 'The tide came in.', comment: 'gone soon' });
    await t.save(alice.token, { url: `${origin}/tides/delete`, selection: 'Scientists measure the range' });
    const [first, second] = (await note(alice, noteId)).highlights;
    const path = `/api/v2/me/notes/${noteId}/highlights/${first.id}`;
    expect((await alice.api(path, { method: 'DELETE' })).status).toBe(204);
    const after = await note(alice, noteId);
    expect(after.highlights).toEqual([second]);
    expect(after.body).not.toContain('The tide came in.');
    expect(after.body).not.toContain('gone soon');
    expect(after.body).toContain('> Scientists measure the range');
    expect((await alice.api(path, { method: 'DELETE' })).status).toBe(404);
    // The same selection saved again is a new highlight, not taken for a retry of the deleted one.
    await t.save(alice.token, { url: `${origin}/tides/delete`, selection: 'The tide came in.' });
    expect((await note(alice, noteId)).highlights).toHaveLength(2);
  });

  it('loses nothing when saves append to the note while one highlight is edited and another deleted', async () => {
    const url = `${origin}/tides/busy`;
    const noteId = await savedNote(alice, '/tides/busy', { selection: 'The tide came in.', comment: 'one' });
    await t.save(alice.token, { url, selection: 'Scientists measure the range', comment: 'two' });
    const [first, second] = (await note(alice, noteId)).highlights;
    const saves = Array.from({ length: 6 }, (_, i) =>
      t.save(alice.token, { url, selection: `Passage number ${i}`, comment: `note ${i}`, append: true }),
    );
    const [edited, deleted] = await Promise.all([
      alice.api(`/api/v2/me/notes/${noteId}/highlights/${second.id}`, { method: 'PATCH', body: { comment: 'TWO' } }),
      alice.api(`/api/v2/me/notes/${noteId}/highlights/${first.id}`, { method: 'DELETE' }),
      ...saves,
    ]);
    expect([edited.status, deleted.status]).toEqual([200, 204]);
    const after = await note(alice, noteId);
    // The body's quotes and comments are exactly the records' (concurrent saves of one millisecond
    // may be recorded in another order than they were appended).
    const inBody = highlightsOfBody(after.body).map(({ quote, comment }) => `${quote} / ${comment}`);
    const recorded = after.highlights.map(
      ({ quote, comment }: { quote: string; comment: string }) => `${quote} / ${comment}`,
    );
    expect([...inBody].sort()).toEqual([...recorded].sort());
    expect(inBody).toHaveLength(7);
    expect(inBody[0]).toBe('Scientists measure the range / TWO');
    expect(after.body).not.toContain('The tide came in.');
  });

  it('answers 404 to another user for every highlight route, and to a highlight named under another note', async () => {
    const noteId = await savedNote(alice, '/tides/private', { selection: 'The tide came in.', comment: 'mine' });
    const otherNote = await savedNote(alice, '/tides/other');
    const [highlight] = (await note(alice, noteId)).highlights;
    const before = await note(alice, noteId);
    const attempts = [
      bob.api(`/api/v2/me/notes/${noteId}/highlights`, { method: 'POST', body: { quote: 'The tide came in.' } }),
      bob.api(`/api/v2/me/notes/${noteId}/highlights/${highlight.id}`, { method: 'PATCH', body: { comment: 'x' } }),
      bob.api(`/api/v2/me/notes/${noteId}/highlights/${highlight.id}`, { method: 'DELETE' }),
      alice.api(`/api/v2/me/notes/${otherNote}/highlights/${highlight.id}`, {
        method: 'PATCH',
        body: { comment: 'x' },
      }),
      alice.api(`/api/v2/me/notes/${otherNote}/highlights/${highlight.id}`, { method: 'DELETE' }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(404);
      expect(await answer.text()).not.toContain('mine');
    }
    expect(await note(alice, noteId)).toEqual(before);
  });
});

describe('the MCP tool add_highlight', () => {
  it('adds a passage of the kept page for its own user, and calls another user’s note unknown', async () => {
    const noteId = await savedNote(alice, '/tides/mcp');
    const connect = (owner: Owner) => mcpClientOf(t, owner, ['notes:read', 'notes:write']);
    const [mine, theirs] = await Promise.all([connect(alice), connect(bob)]);
    const added = (await mine.callTool({
      name: 'add_highlight',
      arguments: { note_id: noteId, quote: 'The tide came in.', suffix: ' By evening', comment: '#mcp' },
    })) as CallToolResult;
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ quote: 'The tide came in.', comment: '#mcp' });
    expect((added.structuredContent as { selector: { suffix: string } }).selector.suffix).toMatch(/^ By evening/);
    expect((await note(alice, noteId)).tags).toEqual(['mcp']);

    const missing = (await mine.callTool({
      name: 'add_highlight',
      arguments: { note_id: noteId, quote: 'The tide went out.' },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain('does not hold this quote');

    const refused = (await theirs.callTool({
      name: 'add_highlight',
      arguments: { note_id: noteId, quote: 'The tide came in.' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('unknown in this account');
    expect((await note(alice, noteId)).highlights).toHaveLength(1);
    await Promise.all([mine.close(), theirs.close()]);
  });
});
