import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { settings as handlerSettings } from '../functions/platform/settings';
import type { ScheduledTaskDefinition, WorkerDefinition } from '../functions/platform/workers';
import { AppFunction, type AccessTargets } from './app-function';
import type { GleanerSettings } from './settings';
import { workerTimeout } from './work-queue';

export interface BackgroundWorkProps {
  readonly workers: readonly WorkerDefinition[];
  readonly scheduledTasks: readonly ScheduledTaskDefinition[];
  readonly settings: GleanerSettings;
  readonly targets: AccessTargets;
  /** Where readers reach the service; the workers store icon URLs under it. */
  readonly publicBaseUrl: string;
}

/** The work done after a save: a function per queue worker and per scheduled task of the shared definitions. */
export class BackgroundWork extends Construct {
  constructor(scope: Construct, id: string, { workers, scheduledTasks, settings, targets, publicBaseUrl }: BackgroundWorkProps) {
    super(scope, id);
    const addFunction = (definition: WorkerDefinition | ScheduledTaskDefinition, description: string) => {
      const fn = new AppFunction(this, definition.id, {
        entry: definition.entry,
        description,
        logRetention: settings.logRetentionDays,
        logLevel: settings.logLevel,
        timeout: workerTimeout,
      });
      fn.bindAccess(definition.access, targets);
      return fn;
    };

    for (const worker of workers) {
      const fn = addFunction(worker, `${worker.id}: drains the ${worker.queue} queue`);
      fn.function.addEnvironment(handlerSettings.publicBaseUrl.name, publicBaseUrl);
      fn.function.addEnvironment(handlerSettings.iconRefreshDays.name, String(settings.iconRefreshDays));
      fn.function.addEnvironment(handlerSettings.sourceQueueUrl.name, targets.queues[worker.queue].queue.queueUrl);
      targets.queues[worker.queue].addWorker(fn.function, settings.workers);
    }

    for (const task of scheduledTasks) {
      const fn = addFunction(task, `${task.id}: runs every ${task.everyMinutes} minutes`);
      const interval = Duration.minutes(task.everyMinutes);
      new Rule(this, `${task.id}Schedule`, {
        description: `Runs ${task.id} every ${task.everyMinutes} minutes`,
        schedule: Schedule.rate(interval),
        // A run that could not start before the next one is due is left to that one.
        targets: [new LambdaFunction(fn.function, { maxEventAge: interval })],
      });
    }
  }
}
