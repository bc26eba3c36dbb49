import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_HEADER } from '../../functions/http/owner-auth';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, savedPage, signedInUser } from '../support/owner';

/**
 * The per-user API reads a JSON body by the save route's rules (issue 31: one body parser): bytes
 * that are not valid in the declared charset are refused, never replaced with U+FFFD and stored.
 */

let t: TestStack;
let alice: Owner;
beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' });
  alice = await signedInUser(t);
});
afterAll(() => t.stop());

describe("a per-user API body's bytes", () => {
  it('refuses invalid UTF-8 with 422 json_invalid at its byte, and takes a declared charset it can decode', async () => {
    const noteId = await savedPage(t, alice, 'https://example.com/bytes');
    const patch = (body: Uint8Array, contentType = 'application/json') =>
      contractFetch(`${t.stack.baseUrl}/api/v2/me/notes/${noteId}`, {
        method: 'PATCH',
        headers: { Cookie: alice.cookie, [CSRF_HEADER]: alice.csrfToken, 'Content-Type': contentType },
        body,
      });
    const invalid = await patch(Buffer.concat([Buffer.from('{"title":"A '), Buffer.from([0xff]), Buffer.from('"}')]));
    expect(invalid.status).toBe(422);
    expect((await json(invalid)).detail[0]).toMatchObject({ loc: ['body', 12], type: 'json_invalid' });
    const latin1 = await patch(Buffer.from('{"title":"Caf\u00e9"}', 'latin1'), 'application/json; charset=iso-8859-1');
    expect(latin1.status).toBe(200);
    expect((await json(latin1)).title).toBe('Café');
    expect((await json(await alice.api(`/api/v2/me/notes/${noteId}`))).title).toBe('Café');
  });
});
