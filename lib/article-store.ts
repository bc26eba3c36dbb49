import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { settings as handlerSettings } from '../functions/platform/settings';
import type { AppFunction } from './app-function';
import { grantBucket, privateBucket } from './private-bucket';
import type { GleanerSettings } from './stage-settings';

/**
 * Where kept articles live on AWS (functions/adapters/article-store.ts): one private, encrypted S3
 * bucket, `articles/<bookmark id>/content.json` and its images; deleted with their note or account.
 */
export class ArticleStore extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: { settings: GleanerSettings }) {
    super(scope, id);
    this.bucket = privateBucket(this, props.settings, 'articles/');
  }

  /** Read (and for writers, write and delete) the articles; tells the function where they are. */
  grant(grantee: AppFunction, write: boolean): void {
    grantBucket(
      grantee,
      this.bucket,
      write,
      'Articles are many objects under one bucket: one folder per kept page, its content and images by name.',
    );
    grantee.function.addEnvironment(handlerSettings.articleStore.name, `s3://${this.bucket.bucketName}`);
  }
}
