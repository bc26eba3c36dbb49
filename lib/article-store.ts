import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { settings as handlerSettings } from '../functions/platform/settings';
import type { AppFunction } from './app-function';
import type { GleanerSettings } from './stage-settings';

/**
 * Where kept articles live on AWS (functions/adapters/article-store.ts): one private, encrypted S3
 * bucket, `articles/<bookmark id>/content.json` and its images; deleted with their note or account.
 */
export class ArticleStore extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: { settings: GleanerSettings }) {
    super(scope, id);
    // The target of server access logs is not logged itself (that would need yet another bucket).
    const accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(props.settings.logRetentionDays) }],
    });
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'articles/',
      // A deleted or replaced article is recoverable for a week, then gone for good.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(7) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** Read (and for writers, write and delete) the articles; tells the function where they are. */
  grant(grantee: AppFunction, write: boolean): void {
    if (write) this.bucket.grantReadWrite(grantee);
    else this.bucket.grantRead(grantee);
    grantee.function.addEnvironment(handlerSettings.articleStore.name, `s3://${this.bucket.bucketName}`);
    grantee.acknowledgeWildcard(
      `Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as never)}.Arn>/*`,
      'Articles are many objects under one bucket: one folder per kept page, its content and images by name.',
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
}
