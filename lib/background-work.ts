import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { settings as handlerSettings } from '../functions/platform/settings';
import type { ScheduledTaskDefinition, WorkerDefinition } from '../functions/platform/workers';
import { type AccessTargets, AppFunction } from './app-function';
import type { GleanerSettings } from './stage-settings';
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
  /** Per scheduled task, the queue its failed runs land in. */
  readonly failedRunQueues: Queue[] = [];

  constructor(
    scope: Construct,
    id: string,
    { workers, scheduledTasks, settings, targets, publicBaseUrl }: BackgroundWorkProps,
  ) {
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
      // Runs that failed: the schedule could not invoke the function, or the function failed twice.
      const failedRuns = new Queue(this, `${task.id}FailedRuns`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      this.failedRunQueues.push(failedRuns);
      Validations.of(failedRuns).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself the dead-letter queue of a schedule and its function.',
      });
      // A run that could not start before the next one is due is left to that one.
      fn.function.configureAsyncInvoke({
        retryAttempts: 1,
        maxEventAge: interval,
        onFailure: new SqsDestination(failedRuns),
      });
      new Rule(this, `${task.id}Schedule`, {
        description: `Runs ${task.id} every ${task.everyMinutes} minutes`,
        schedule: Schedule.rate(interval),
        targets: [
          new LambdaFunction(fn.function, { maxEventAge: interval, retryAttempts: 2, deadLetterQueue: failedRuns }),
        ],
      });
      failedRuns
        .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: Stats.MAXIMUM })
        .createAlarm(this, `${task.id}FailedRunsAlarm`, {
          alarmDescription: `A ${task.id} run failed (its schedule could not invoke it, or it failed twice). Look first at the function's log group for the run's error, then at the messages in the ${task.id}FailedRuns queue (they name the request); purge them once understood.`,
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        });
    }
  }
}
