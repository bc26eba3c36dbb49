import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GleanerStack } from '../lib/gleaner-stack';
import { DEFAULT_STAGE, settingsForStage } from '../lib/stage-settings';

const app = new App();
const stage = app.node.tryGetContext('stage') as string | undefined;
const settings = settingsForStage(app.node.tryGetContext('gleaner'), stage ?? DEFAULT_STAGE);

new GleanerStack(app, stage ? `Gleaner-${stage}` : 'Gleaner', {
  description: 'Gleaner: bookmark capture and published feeds',
  settings,
});
// cdk-nag 3 is a validation plugin, not an aspect: a finding nobody acknowledged fails the synth,
// and acknowledged ones are written into the template's Metadata with their reasons.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
