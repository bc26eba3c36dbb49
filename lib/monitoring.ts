import { NestedStack, Stack } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '../functions/platform/routes';
import { Alarms } from './alarms';
import type { Api } from './api';
import type { Cdn } from './cdn';
import { OperationsDashboard } from './dashboard';
import type { DataTable } from './data';
import type { GleanerSettings } from './stage-settings';
import type { WorkQueues } from './work-queue';

export interface MonitoringProps {
  readonly settings: GleanerSettings;
  readonly routes: readonly RouteDefinition[];
  readonly api: Api;
  readonly cdn: Cdn;
  readonly data: DataTable;
  readonly queues: WorkQueues;
  readonly failedRunQueues: readonly Queue[];
  readonly topic: ITopic;
}

/**
 * The alarms on the API, the functions, the table, the queues and CloudFront, and the operations
 * dashboard, in a nested stack: they are a sixth of the service's resources and grow with every
 * function, and CloudFormation allows 500 resources a stack. They only read the service's stack
 * (names and ARNs, passed in as parameters), so nothing there waits on this one; the alarms other
 * constructs raise stay beside their resources, and the topic beside them.
 */
export class Monitoring extends NestedStack {
  constructor(
    scope: Construct,
    id: string,
    { settings, routes, api, cdn, data, queues, failedRunQueues, topic }: MonitoringProps,
  ) {
    super(scope, id, { description: `Gleaner ${settings.stage}: alarms and the operations dashboard` });
    const root = Stack.of(scope);
    // After everything else: it alarms on every function and gives every alarm of the service its topic.
    new Alarms(this, 'Alarms', { settings, root, topic, routes, api, cdn, data, queues });
    // After the alarms, whose states it shows.
    new OperationsDashboard(this, 'Operations', {
      stage: settings.stage,
      root,
      routes,
      api,
      cdn,
      data,
      queues,
      failedRunQueues,
    });
  }
}
