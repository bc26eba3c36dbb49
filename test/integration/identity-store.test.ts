import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoIdentityStore } from '../../functions/adapters/dynamo/identity-store';
import { EmailTakenError } from '../../functions/core/identity/account-flows';
import type { Login } from '../../functions/core/identity/identity';
import { newUser } from '../../functions/core/workspace/accounts';
import { createTestStores, type createTestTable } from '../support/dynamo';

/**
 * The identity store's transactions against DynamoDB Local: a refusal is told by the step whose
 * condition failed (the login taken, the user missing), and a refused transaction writes nothing.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let identity: DynamoIdentityStore;

beforeAll(async () => {
  ({ table, accounts } = await createTestStores());
  identity = new DynamoIdentityStore(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());

const loginOf = (email: string, userId: string): Login => ({
  email,
  userId,
  passwordHash: null,
  verified: false,
  created: new Date().toISOString(),
});
const person = () => newUser({ id: randomUUID(), name: '', now: new Date() });
const address = (name: string) => `${name}-${randomUUID()}@example.com`;

describe('the identity store', () => {
  it('refuses a sign-up with a taken address as taken, and creates no user', async () => {
    const [ada, grace] = [person(), person()];
    const email = address('ada');
    await identity.createUserWithLogin(ada, loginOf(email, ada.id));
    await expect(identity.createUserWithLogin(grace, loginOf(email, grace.id))).rejects.toBeInstanceOf(EmailTakenError);
    expect(await accounts.getUser(grace.id)).toBeNull();
    expect((await identity.getLogin(email))?.userId).toBe(ada.id);
  });

  it('tells a missing user from a taken address when adding a login', async () => {
    const [ada, grace] = [person(), person()];
    const adaEmail = address('ada');
    await identity.createUserWithLogin(ada, loginOf(adaEmail, ada.id));
    await accounts.createUser(grace);
    await expect(identity.addLogin(loginOf(adaEmail, grace.id))).rejects.toBeInstanceOf(EmailTakenError);
    await expect(identity.addLogin(loginOf(address('nobody'), randomUUID()))).rejects.toThrow(/does not exist/);
    const graceEmail = address('grace');
    await identity.addLogin(loginOf(graceEmail, grace.id));
    expect((await identity.getLoginOfUser(grace.id))?.email).toBe(graceEmail);
  });

  it('refuses to move a login to a taken address, or a login that is not the user’s, and moves nothing', async () => {
    const [ada, grace] = [person(), person()];
    const [adaEmail, graceEmail] = [address('ada'), address('grace')];
    await identity.createUserWithLogin(ada, loginOf(adaEmail, ada.id));
    await identity.createUserWithLogin(grace, loginOf(graceEmail, grace.id));
    const adaLogin = (await identity.getLogin(adaEmail))!;
    await expect(identity.changeEmail(adaLogin, graceEmail)).rejects.toBeInstanceOf(EmailTakenError);
    // Grace's id on Ada's login: the old login is not hers to move.
    await expect(identity.changeEmail({ ...adaLogin, userId: grace.id }, address('elsewhere'))).rejects.toThrow(
      /no longer there/,
    );
    expect((await identity.getLoginOfUser(ada.id))?.email).toBe(adaEmail);
    expect((await identity.getLoginOfUser(grace.id))?.email).toBe(graceEmail);
  });
});
