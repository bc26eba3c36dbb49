import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { fillNoteToTheBrink } from '../support/full-note';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, savedPage, signedInUser } from '../support/owner';

/**
 * Issue 31: a note's item could outgrow DynamoDB's 400 KB before its body reached its own 300 KB,
 * and every write that made it bigger then answered 500. NoteBody keeps both limits, so the save's
 * append, the save that rewrites the note (a new hashtag) and the owner's edit all answer the 422
 * `note_too_large`, write nothing, and leave the note readable and editable in ways that do not grow it.
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;
beforeAll(async () => {
  t = await startTestStack();
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
});
afterAll(() => t?.stop());

const SELECTION = 'A highlight of about a hundred and sixty bytes, as people make them when they read closely. '.padEnd(
  160,
  'x',
);

const noteItem = async (noteId: string) =>
  (await t.table.doc.send(new GetCommand({ TableName: t.table.tableName, Key: keys.note(noteId) }))).Item!;

describe("a note at DynamoDB's item limit", () => {
  it('refuses an append, a save that rewrites it and an edit that grows it with 422 note_too_large, never 500', async () => {
    const url = `https://example.com/${randomUUID()}`;
    const noteId = await savedPage(t, alice, url, { selection: SELECTION });
    const bobsNote = await savedPage(t, bob, url, { selection: SELECTION });
    expect(await fillNoteToTheBrink(t.table, noteId, `> ${SELECTION}`)).toBeGreaterThan(1000);
    const before = await noteItem(noteId);
    expect(before.bodyBytes).toBeLessThan(300 * 1024);

    // The save's append (one conditional UpdateItem of the note).
    const append = await t.save(alice.token, { url, selection: `${SELECTION} the next one` });
    expect(append.status).toBe(422);
    expect((await json(append)).detail[0]).toMatchObject({ loc: ['body', 'selection'], type: 'note_too_large' });
    // A save with a new hashtag rewrites the note whole (its tags change).
    const rewrite = await t.save(alice.token, { url, selection: `${SELECTION} another`, comment: '#new' });
    expect(rewrite.status).toBe(422);
    expect((await json(rewrite)).detail[0]).toMatchObject({ type: 'note_too_large' });

    // The owner's edits that make it bigger: a comment, a title, tags (each in its own field's loc).
    const patch = (body: unknown) => alice.api(`/api/v2/me/notes/${noteId}`, { method: 'PATCH', body });
    const comment = await patch({ comment: 'c'.repeat(5000) });
    expect(comment.status).toBe(422);
    expect((await json(comment)).detail).toEqual([
      {
        loc: ['body', 'comment'],
        msg: expect.stringMatching(/larger than a note can be stored/),
        type: 'note_too_large',
      },
    ]);
    const tags = await patch({ tags: Array.from({ length: 50 }, (_, i) => `tag-${i}-${'t'.repeat(50)}`) });
    expect(tags.status).toBe(422);
    expect((await json(tags)).detail[0]).toMatchObject({ loc: ['body', 'tags'], type: 'note_too_large' });
    const title = await patch({ title: 'T'.repeat(1000) });
    expect(title.status).toBe(422);
    expect((await json(title)).detail[0]).toMatchObject({ loc: ['body', 'title'], type: 'note_too_large' });

    // Nothing of it was written; the note reads as before and takes edits that do not grow it.
    expect(await noteItem(noteId)).toEqual(before);
    const read = await alice.api(`/api/v2/me/notes/${noteId}`);
    expect(read.status).toBe(200);
    const archived = await patch({ archived: true, title: 'Short' });
    expect(archived.status).toBe(200);
    expect(await json(archived)).toMatchObject({ archived: true, title: 'Short' });

    // Bob's note of the same page is his own: it takes the same edits, and Alice's ids are not his.
    const bobs = await bob.api(`/api/v2/me/notes/${bobsNote}`, {
      method: 'PATCH',
      body: { comment: 'c'.repeat(5000) },
    });
    expect(bobs.status).toBe(200);
    expect((await bob.api(`/api/v2/me/notes/${noteId}`, { method: 'PATCH', body: { title: 'x' } })).status).toBe(404);
    expect((await t.save(bob.token, { url, selection: `${SELECTION} the next one` })).status).toBe(200);
  });
});
