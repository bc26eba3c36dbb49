import { Duration } from 'aws-cdk-lib';
import { type Bucket, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { settings as handlerSettings } from '../functions/platform/settings';
import type { AppFunction } from './app-function';
import { grantBucket, privateBucket } from './private-bucket';
import type { GleanerSettings } from './stage-settings';

/** Days an uploaded file may wait (an upload never started, an import that failed) before it goes. */
const UPLOAD_EXPIRY_DAYS = 2;

/**
 * Where import files are uploaded on AWS (functions/adapters/upload-store.ts): one private, encrypted
 * bucket. The web app PUTs a file to a presigned URL (so a large export passes neither API Gateway's
 * 10 MB nor Lambda's payload limit); the import worker reads it and deletes it once imported.
 */
export class ImportUploads extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: { settings: GleanerSettings }) {
    super(scope, id);
    this.bucket = privateBucket(this, props.settings, 'imports/');
    this.bucket.addLifecycleRule({
      expiration: Duration.days(UPLOAD_EXPIRY_DAYS),
      abortIncompleteMultipartUploadAfter: Duration.days(1),
    });
    // The browser PUTs from the web app's page; the presigned URL itself is the credential.
    this.bucket.addCorsRule({ allowedMethods: [HttpMethods.PUT], allowedOrigins: ['*'], allowedHeaders: ['*'] });
  }

  /** Presign uploads, read and delete them; tells the function where they are. */
  grant(grantee: AppFunction): void {
    grantBucket(grantee, this.bucket, true, 'Uploads are many objects under one bucket: one per import, by its id.');
    grantee.function.addEnvironment(handlerSettings.importUploads.name, `s3://${this.bucket.bucketName}`);
  }
}
