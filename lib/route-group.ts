import { Lazy, NestedStack } from 'aws-cdk-lib';
import {
  type CfnMethod,
  Deployment,
  type IResource,
  type IRestApi,
  type Method,
  Resource,
  RestApi,
  Stage,
  type StageOptions,
} from 'aws-cdk-lib/aws-apigateway';
import type { Construct, IConstruct } from 'constructs';
import type { RouteDefinition, RouteGroup } from '../functions/platform/routes';

/**
 * Where each API Gateway resource lives. A path whose routes all belong to one group lives in that
 * group's nested stack; the API's root and the prefixes several groups share (`/api`, `/api/v2`) live
 * in the service's stack beside the RestApi, so that no two stacks create the same path.
 */
export function resourceGroups(routes: readonly RouteDefinition[]): Map<string, RouteGroup | undefined> {
  const groupsOf = new Map<string, Set<RouteGroup>>();
  for (const route of routes)
    for (const path of pathPrefixes(route.path))
      groupsOf.set(path, new Set([...(groupsOf.get(path) ?? []), route.group]));
  return new Map(
    [...groupsOf].map(([path, groups]) => [path, path !== '/' && groups.size === 1 ? [...groups][0] : undefined]),
  );
}

/** `/a/b/c` → `/`, `/a`, `/a/b`, `/a/b/c`. */
function pathPrefixes(path: string): string[] {
  const segments = path.split('/').filter(Boolean);
  return ['/', ...segments.map((_, index) => `/${segments.slice(0, index + 1).join('/')}`)];
}

function parentPath(path: string): string {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}

export interface RouteGroupStackProps {
  readonly group: RouteGroup;
  readonly restApi: RestApi;
  /** The resources of the service's stack (the root and the shared prefixes), by path. */
  readonly sharedResources: ReadonlyMap<string, IResource>;
  readonly resourceGroups: ReadonlyMap<string, RouteGroup | undefined>;
}

/**
 * One route group's API Gateway resources and methods, on the service's RestApi, in a nested stack
 * of their own (as CDK's integ.restapi-import.lit.ts splits a REST API). The methods on the API's
 * root path stay in the service's stack with the root resource: CDK refuses a RestApi without a
 * method of its own.
 */
export class RouteGroupStack extends NestedStack {
  /** Every method added here, for the deployment to wait on and to hash. */
  readonly methods: Method[] = [];
  readonly group: RouteGroup;
  private readonly api: IRestApi;
  private readonly resources = new Map<string, IResource>();

  constructor(
    scope: Construct,
    id: string,
    private readonly props: RouteGroupStackProps,
  ) {
    super(scope, id, { description: `Gleaner: the API's ${props.group} routes` });
    this.group = props.group;
    this.api = RestApi.fromRestApiAttributes(this, 'RestApi', {
      restApiId: props.restApi.restApiId,
      rootResourceId: props.restApi.restApiRootResourceId,
    });
  }

  /** The resource of a path of this group, made here unless the service's stack holds it. */
  resourceFor(path: string): IResource {
    if (path === '/') return this.props.restApi.root;
    const known = this.resources.get(path);
    if (known) return known;
    const shared = this.props.sharedResources.get(path);
    const resource = shared
      ? Resource.fromResourceAttributes(this, `Shared${path.replace(/\W/g, '')}`, {
          resourceId: shared.resourceId,
          restApi: this.api,
          path,
        })
      : this.parentOf(path).addResource(path.slice(path.lastIndexOf('/') + 1));
    if (!shared && this.props.resourceGroups.get(path) !== this.props.group)
      throw new Error(`The path ${path} does not belong to the ${this.props.group} routes`);
    this.resources.set(path, resource);
    return resource;
  }

  /** A child of the root is made under the imported root, so that it lands in this stack. */
  private parentOf(path: string): IResource {
    const parent = parentPath(path);
    return parent === '/' ? this.api.root : this.resourceFor(parent);
  }
}

export interface ApiDeploymentProps {
  readonly restApi: RestApi;
  readonly groups: readonly RouteGroupStack[];
  /** What else the deployment takes a snapshot of (the gateway responses, the root's methods). */
  readonly deployed: readonly IConstruct[];
  readonly stage: StageOptions;
}

/**
 * The API's deployment and its stage, in a nested stack after every route group. A deployment is a
 * snapshot of the API, so its logical id hashes every method and gateway response: any change to
 * them makes a new one, which the stage then serves.
 */
export class ApiDeployment extends NestedStack {
  readonly stage: Stage;

  constructor(scope: Construct, id: string, { restApi, groups, deployed, stage }: ApiDeploymentProps) {
    super(scope, id, { description: "Gleaner: the API's deployment and stage" });
    const deployment = new Deployment(this, 'Deployment', {
      api: restApi,
      description: 'Gleaner: every route group',
    });
    for (const group of groups) {
      deployment.node.addDependency(group);
      for (const method of group.methods) deployment.addToLogicalId(cloudFormationOf(method));
    }
    for (const construct of deployed) {
      deployment.node.addDependency(construct);
      deployment.addToLogicalId(cloudFormationOf(construct));
    }
    this.stage = new Stage(this, 'Stage', { deployment, ...stage });
  }
}

/** A construct's CloudFormation properties, read at synthesis (after every override). */
function cloudFormationOf(construct: IConstruct) {
  return Lazy.any({
    produce: () => (construct.node.defaultChild as CfnMethod & { _toCloudFormation(): object })._toCloudFormation(),
  });
}
