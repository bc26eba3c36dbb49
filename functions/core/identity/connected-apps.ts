import type { ConnectedApp } from '../web/oauth-pages';
import type { AccountFlowPorts } from './account-flows';

/**
 * Settings › Connected apps as use cases, on the authorization server's records of a user (the
 * AuthorizationGrants port, DynamoOAuthGrants deployed): the OAuth apps the user allowed, and
 * disconnecting one.
 */

type GrantPorts = Pick<AccountFlowPorts, 'grants'>;

/** The apps the user allowed, each by the name its client registered (its client id when it has none). */
export async function connectedApps(ports: GrantPorts, userId: string): Promise<ConnectedApp[]> {
  const grants = await ports.grants.listGrants(userId);
  return Promise.all(
    grants.map(async (grant) => ({
      grantId: grant.grantId,
      clientName: (await ports.grants.clientName(grant.clientId)) ?? grant.clientId,
      scopes: grant.scopes,
      granted: grant.granted,
    })),
  );
}

/**
 * Disconnects an app: revokes the user's own grant and every token issued under it. False when the
 * user has no such grant; another user's grant id is refused as an unknown one is.
 */
export async function disconnectApp(ports: GrantPorts, userId: string, grantId: string | null): Promise<boolean> {
  return grantId ? ports.grants.revokeGrant(userId, grantId) : false;
}
