import { describe, expect, it } from 'vitest';
import { connectedApps, disconnectApp } from '../../functions/core/identity/connected-apps';
import { inMemoryAccountPorts } from '../support/in-memory-identity';

/**
 * Settings › Connected apps (core/identity/connected-apps.ts) over the in-memory grants: each person
 * sees and disconnects only the apps they allowed. test/http/oauth.test.ts runs the same through the
 * pages and a real authorization server, over DynamoDB Local.
 */
function twoPeopleWithApps() {
  const { ports, grants } = inMemoryAccountPorts();
  grants.clients.set('client-notes', 'Notes assistant');
  const ada = grants.grant('ada', 'client-notes', ['notes:read', 'openid']);
  const adaUnnamed = grants.grant('ada', 'client-unnamed', ['notes:read']);
  const grace = grants.grant('grace', 'client-notes', ['notes:write']);
  return { ports, grants, ada, adaUnnamed, grace };
}

describe('Connected apps', () => {
  it('lists the apps each person allowed, by the name the client registered or else its id', async () => {
    const { ports, ada, adaUnnamed, grace } = twoPeopleWithApps();
    expect(await connectedApps(ports, 'ada')).toEqual([
      {
        grantId: ada,
        clientName: 'Notes assistant',
        scopes: ['notes:read', 'openid'],
        granted: '2026-11-28T09:00:00.000Z',
      },
      {
        grantId: adaUnnamed,
        clientName: 'client-unnamed',
        scopes: ['notes:read'],
        granted: '2026-11-28T09:00:00.000Z',
      },
    ]);
    expect((await connectedApps(ports, 'grace')).map((app) => app.grantId)).toEqual([grace]);
    expect(await connectedApps(ports, 'nobody')).toEqual([]);
  });

  it("disconnects a person's own app only; another person's grant id is refused as an unknown one", async () => {
    const { ports, grants, ada, adaUnnamed, grace } = twoPeopleWithApps();
    expect(await disconnectApp(ports, 'grace', ada)).toBe(false);
    expect(await disconnectApp(ports, 'grace', 'grant-unknown')).toBe(false);
    expect(await disconnectApp(ports, 'grace', null)).toBe(false);
    expect(await disconnectApp(ports, 'grace', '')).toBe(false);
    expect(grants.grants.has(ada)).toBe(true);
    expect(await disconnectApp(ports, 'ada', ada)).toBe(true);
    expect(await disconnectApp(ports, 'ada', ada)).toBe(false);
    expect((await connectedApps(ports, 'ada')).map((app) => app.grantId)).toEqual([adaUnnamed]);
    expect((await connectedApps(ports, 'grace')).map((app) => app.grantId)).toEqual([grace]);
  });
});
