import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { BehaviorOptions, IResponseHeadersPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { AllowedMethods, CachedMethods, CachePolicy, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { ASSETS_PATH } from '../functions/core/web/layout';
import { buildWebAssets, type WebAsset, webAssetsVersion } from '../web/build';

export interface BuiltWebAssets {
  readonly assets: ReadonlyMap<string, WebAsset>;
  /** What the pages and the bucket's key prefix name the set by (`webAssetsVersion`). */
  readonly version: string;
  /** A folder holding the built files, for the deployment's asset. */
  readonly directory: string;
}

let built: BuiltWebAssets | undefined;

/**
 * The web app's assets as the local stack serves them (web/build.ts), built once per process: the
 * function bundles take their version, the web bucket their files.
 */
export function webAssets(): BuiltWebAssets {
  if (built) return built;
  const assets = buildWebAssets();
  const version = webAssetsVersion(assets);
  const directory = path.join(tmpdir(), 'gleaner-web-assets', version);
  if (!existsSync(directory)) {
    mkdirSync(directory, { recursive: true });
    for (const [file, { body }] of assets) writeFileSync(path.join(directory, file), body);
  }
  built = { assets, version, directory };
  return built;
}

export interface WebAssetsBucketProps {
  /** Where the bucket's server access logs go (the CDN's). */
  readonly serverAccessLogsBucket: IBucket;
  readonly responseHeadersPolicy: IResponseHeadersPolicy;
}

/**
 * The web app's stylesheet, scripts, icons and manifest in a private S3 bucket, read by CloudFront
 * alone (origin access control) under `/assets/*`; pages and the API keep going to API Gateway.
 * Each build goes under its own version, `assets/<version>/`, with a year's immutable
 * Cache-Control: a deployment never changes a file a cached page names. Earlier versions stay
 * (no pruning), for pages rendered before the deployment that are still open; they are a few KB each.
 */
export class WebAssetsBucket extends Construct {
  readonly bucket: Bucket;
  /** The CloudFront behaviour for `ASSETS_PATH/*`. */
  readonly behavior: BehaviorOptions;
  readonly version: string;

  constructor(scope: Construct, id: string, { serverAccessLogsBucket, responseHeadersPolicy }: WebAssetsBucketProps) {
    super(scope, id);
    const { assets, version, directory } = webAssets();
    this.version = version;
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      serverAccessLogsBucket,
      serverAccessLogsPrefix: 'web-assets/',
    });
    // S3 stores one Content-Type per upload, so one deployment per type (they share one function).
    const filesByType = new Map<string, string[]>();
    for (const [file, { contentType }] of assets)
      filesByType.set(contentType, [...(filesByType.get(contentType) ?? []), file]);
    for (const [contentType, files] of filesByType) {
      const deployment = new BucketDeployment(this, `Deploy${typeId(contentType)}`, {
        sources: [Source.asset(directory)],
        destinationBucket: this.bucket,
        destinationKeyPrefix: `${ASSETS_PATH.slice(1)}/${version}/`,
        exclude: ['*'],
        include: files,
        contentType,
        cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
        prune: false,
      });
      this.acknowledgeDeploymentFindings(deployment);
    }
    this.behavior = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachedMethods: CachedMethods.CACHE_GET_HEAD,
      compress: true,
      // TTLs from the objects' Cache-Control (a year), nothing per viewer in the key.
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy,
    };
  }

  /**
   * The CDK's deployment function (one for the stack), which runs only at deployment to copy the web
   * assets: the AWS-managed logging policy, and the wildcards of copying a folder from the CDK's
   * asset bucket into this one.
   */
  private acknowledgeDeploymentFindings(deployment: BucketDeployment): void {
    const copying =
      "The CDK's BucketDeployment function copies a folder: it reads the asset objects of the CDK bootstrap bucket and writes any key of the web bucket; it runs at deployment only.";
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    Validations.of(deployment.handlerRole.node.scope!).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "The CDK's BucketDeployment function, which runs only at deployment to copy the web assets, logs through the AWS-managed basic execution policy.",
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          "The CDK's BucketDeployment function runs the Python runtime the CDK release pins; it runs at deployment only.",
      },
      ...['s3:Abort*', 's3:DeleteObject*', 's3:GetBucket*', 's3:GetObject*', 's3:List*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: copying,
      })),
      { id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`, reason: copying },
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        reason: copying,
      },
    );
  }
}

/** `text/css; charset=utf-8` → `TextCss`: a construct id for the deployment of one content type. */
function typeId(contentType: string): string {
  return contentType
    .split(';')[0]!
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
