import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { routes } from '../functions/platform/routes';
import { scheduledTasks, streamConsumers, workers } from '../functions/platform/workers';
import { AlarmTopic } from './alarms';
import { Api } from './api';
import type { AccessTargets } from './app-function';
import { ArticleStore } from './article-store';
import { BackgroundWork } from './background-work';
import { Cdn } from './cdn';
import { DataTable } from './data';
import { Identity } from './identity';
import { ImportUploads } from './import-uploads';
import { Monitoring } from './monitoring';
import { SearchIndexing, SearchIndexStore } from './search';
import type { GleanerSettings } from './stage-settings';
import { createWorkQueues } from './work-queue';

export interface GleanerStackProps extends StackProps {
  readonly settings: GleanerSettings;
}

/**
 * The whole service in one stack, so constructs reference each other without cross-stack exports;
 * its alarms and dashboard in a nested stack (lib/monitoring.ts), for CloudFormation's 500 resources.
 */
export class GleanerStack extends Stack {
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, { settings, ...props }: GleanerStackProps) {
    super(scope, id, props);
    const data = new DataTable(this, 'Data');
    const identity = new Identity(this, 'Identity', { mailFrom: settings.mailFrom });
    const search = new SearchIndexStore(this, 'SearchIndex', { settings });
    const articles = new ArticleStore(this, 'Articles', { settings });
    const uploads = new ImportUploads(this, 'ImportUploads', { settings });
    const targets: AccessTargets = { data, queues: createWorkQueues(this), identity, search, articles, uploads };
    const api = new Api(this, 'Api', { routes, settings, targets });
    const cdn = new Cdn(this, 'Cdn', { api, routes, settings });
    // gleaner.publicBaseUrl, else the custom domain, else the distribution's own domain.
    const publicBaseUrl = settings.publicBaseUrl ?? cdn.baseUrl;
    api.usePublicBaseUrl(publicBaseUrl);
    const background = new BackgroundWork(this, 'Background', {
      workers,
      scheduledTasks,
      settings,
      targets,
      publicBaseUrl,
    });
    new SearchIndexing(this, 'Search', { consumers: streamConsumers, settings, targets, data });
    const { topic } = new AlarmTopic(this, 'Alarms', { settings });
    // Last: it alarms on every function and gives every alarm its topic.
    this.monitoring = new Monitoring(this, 'Monitoring', {
      settings,
      routes,
      api,
      cdn,
      data,
      queues: targets.queues,
      failedRunQueues: background.failedRunQueues,
      topic,
    });

    new CfnOutput(this, 'BaseUrl', {
      value: publicBaseUrl,
      description: 'Base URL of the service, for users, extensions and gleaner --base-url',
    });
    new CfnOutput(this, 'ApiBaseUrl', {
      value: api.restApi.url,
      description: 'Base URL of the API stage (the save route answers here too)',
    });
    new CfnOutput(this, 'TableName', { value: data.table.tableName });
    new CfnOutput(this, 'SearchIndexUri', {
      value: search.uri,
      description: 'The search index, for gleaner reindex/search --table … --search-index',
    });
    for (const workQueue of Object.values(targets.queues)) {
      new CfnOutput(this, `${workQueue.node.id}QueueUrl`, {
        value: workQueue.queue.queueUrl,
        description: `URL of the ${workQueue.definition.name} queue`,
      });
    }
  }
}
