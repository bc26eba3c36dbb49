import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { AppFunction } from './app-function';
import type { GleanerSettings } from './stage-settings';

/**
 * A bucket of the service's own data (the search index, kept articles): never public, encrypted,
 * SSL only, versioned (an old version is kept a week for recovery, then goes), retained when the
 * stack goes, with server access logs in a bucket of its own. Made as `Bucket` and `AccessLogs` in
 * `scope`.
 */
export function privateBucket(scope: Construct, settings: GleanerSettings, logPrefix: string): Bucket {
  // The target of server access logs is not logged itself (that would need yet another bucket).
  const accessLogs = new Bucket(scope, 'AccessLogs', {
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    lifecycleRules: [{ expiration: Duration.days(settings.logRetentionDays) }],
  });
  return new Bucket(scope, 'Bucket', {
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    versioned: true,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: logPrefix,
    lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(7) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** Grants reading (and writing) the bucket's objects, with the reasons for the wildcards cdk-nag finds. */
export function grantBucket(grantee: AppFunction, bucket: Bucket, write: boolean, objectsReason: string): void {
  if (write) bucket.grantReadWrite(grantee);
  else bucket.grantRead(grantee);
  grantee.acknowledgeWildcard(
    `Resource::<${Stack.of(bucket).getLogicalId(bucket.node.defaultChild as never)}.Arn>/*`,
    objectsReason,
  );
  for (const action of [
    'Action::s3:GetBucket*',
    'Action::s3:GetObject*',
    'Action::s3:List*',
    'Action::s3:Abort*',
    'Action::s3:DeleteObject*',
  ])
    grantee.acknowledgeWildcard(action, 'The CDK grant for reading and writing one bucket, scoped to that bucket.');
}
