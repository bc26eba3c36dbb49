import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { routes } from '../functions/platform/routes';
import { Api } from './api';
import { DataTable } from './data';
import { EnrichmentQueue } from './enrichment';
import type { GleanerSettings } from './settings';

export interface GleanerStackProps extends StackProps {
  readonly settings: GleanerSettings;
}

/** The whole service in one stack, so constructs reference each other without cross-stack exports. */
export class GleanerStack extends Stack {
  constructor(scope: Construct, id: string, { settings, ...props }: GleanerStackProps) {
    super(scope, id, props);
    const data = new DataTable(this, 'Data');
    const enrichment = new EnrichmentQueue(this, 'Enrichment');
    const api = new Api(this, 'Api', { routes, settings, data, enrichment });

    new CfnOutput(this, 'ApiBaseUrl', { value: api.restApi.url, description: 'Base URL of the API stage' });
    new CfnOutput(this, 'TableName', { value: data.table.tableName });
    new CfnOutput(this, 'EnrichmentQueueUrl', { value: enrichment.queue.queueUrl });
  }
}
