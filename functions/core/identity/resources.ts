import { ALL_SCOPES, type Scope } from './principal';

/**
 * The resource servers (RFC 8707 resource indicators) OAuth access tokens are issued for. A token is
 * bound to one of them (its audience) and every resource refuses tokens issued for another.
 */
const RESOURCE_PATHS = {
  /** The per-user API. */
  ownerApi: '/api/v2/me',
  /** The MCP server (functions/mcp). */
  mcp: '/mcp',
} as const;

export type ResourceName = keyof typeof RESOURCE_PATHS;

/** A resource's identifier: its absolute URL at the service's public address. */
export function resourceIdentifier(baseUrl: string, resource: ResourceName): string {
  return `${baseUrl.replace(/\/+$/, '')}${RESOURCE_PATHS[resource]}`;
}

/** Where a resource's Protected Resource Metadata (RFC 9728) is: the well-known path with the resource's path after it. */
export function resourceMetadataUrl(baseUrl: string, resource: ResourceName): string {
  return `${baseUrl.replace(/\/+$/, '')}${RESOURCE_METADATA_PREFIX}${RESOURCE_PATHS[resource]}`;
}

const RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** The resource whose metadata a path asks for, or null. */
export function resourceOfMetadataPath(path: string): ResourceName | null {
  for (const name of Object.keys(RESOURCE_PATHS) as ResourceName[])
    if (path === `${RESOURCE_METADATA_PREFIX}${RESOURCE_PATHS[name]}`) return name;
  return null;
}

/** The scopes an access token for a resource may carry. */
export const RESOURCE_SCOPES: Record<ResourceName, readonly Scope[]> = {
  ownerApi: ALL_SCOPES,
  mcp: ALL_SCOPES,
};

/** The resource a URL names, or null when it names none of ours (refused by the authorization server). */
export function resourceNamed(baseUrl: string, indicator: string): ResourceName | null {
  for (const name of Object.keys(RESOURCE_PATHS) as ResourceName[]) {
    if (resourceIdentifier(baseUrl, name) === indicator) return name;
  }
  return null;
}
