import { Aws, Duration, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CacheCookieBehavior,
  CachedMethods,
  CacheHeaderBehavior,
  CachePolicy,
  type CachePolicyProps,
  CacheQueryStringBehavior,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { BlockPublicAccess, Bucket, BucketEncryption, type BucketProps, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ASSETS_PATH } from '../functions/core/web/layout';
import type { RouteDefinition } from '../functions/platform/routes';
import type { Api } from './api';
import type { GleanerSettings } from './stage-settings';
import { CdnWebAcl } from './waf';
import { WebAssetsBucket } from './web-assets';

export interface CdnProps {
  readonly api: Api;
  readonly routes: readonly RouteDefinition[];
  readonly settings: GleanerSettings;
}

/**
 * CloudFront in front of the regional REST API (after aws-solutions-constructs
 * aws-cloudfront-apigateway-lambda). The public routes (`cdn: true`: feeds, icons) are cached by
 * the origin's Cache-Control and answered by CloudFront; everything else, the save route included,
 * passes through uncached, but for the web app's assets, which come from their bucket (lib/web-assets.ts). Extensions may use either this distribution's URL or the API's: the
 * save route answers the same at both.
 */
export class Cdn extends Construct {
  readonly distribution: Distribution;
  /** `https://<distribution domain>`: what users and `gleaner --base-url` are given. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, { api, routes, settings }: CdnProps) {
    super(scope, id);
    const responseHeadersPolicy = this.securityHeaders();
    const cachedBehavior: BehaviorOptions = {
      // Its API key is the only way into the cached routes' methods, so the default behavior's
      // origin does not carry it.
      origin: apiOrigin(api, settings, {
        // unsafeUnwrap gives the {{resolve:secretsmanager:…}} reference, not the secret itself.
        customHeaders: { 'x-api-key': api.cdnOriginKey.secretValue.unsafeUnwrap() },
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      // OPTIONS for the feeds' CORS preflight, which API Gateway answers (never cached: no Cache-Control).
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
      cachedMethods: CachedMethods.CACHE_GET_HEAD,
      compress: true,
      cachePolicy: new CachePolicy(this, 'OriginCacheControl', {
        ...PUBLIC_CACHE_POLICY,
        comment: 'Gleaner public routes: TTLs from the origin Cache-Control; one copy for every reader',
        queryStringBehavior: CacheQueryStringBehavior.none(),
      }),
      originRequestPolicy: new OriginRequestPolicy(this, 'ViewerAddressAndHost', {
        comment: 'Gleaner public routes: the reader address (rate limits) and the host readers used (feed URLs)',
        headerBehavior: OriginRequestHeaderBehavior.allowList('CloudFront-Viewer-Address', 'X-Forwarded-Host'),
        cookieBehavior: OriginRequestCookieBehavior.none(),
        queryStringBehavior: OriginRequestQueryStringBehavior.none(),
      }),
      functionAssociations: [{ eventType: FunctionEventType.VIEWER_REQUEST, function: this.forwardViewerHost() }],
      responseHeadersPolicy,
    };

    // Routes answering pages by their query: the same behaviour, keyed on those parameters too
    // (one cache policy per set of parameters).
    const pagedPolicies = new Map<string, CachePolicy>();
    const pagedPolicy = (queryKeys: readonly string[]) => {
      const name = queryKeys.map((key) => key.charAt(0).toUpperCase() + key.slice(1)).join('');
      let policy = pagedPolicies.get(name);
      if (!policy) {
        policy = new CachePolicy(this, `OriginCacheControlBy${name}`, {
          ...PUBLIC_CACHE_POLICY,
          comment: `Gleaner paged feeds: as the public routes, plus the query parameters ${queryKeys.join(', ')} in the key`,
          queryStringBehavior: CacheQueryStringBehavior.allowList(...queryKeys),
        });
        pagedPolicies.set(name, policy);
      }
      return policy;
    };
    const pagedBehaviors = pagedPathPatterns(routes).map(({ pattern, queryKeys }) => [
      pattern,
      { ...cachedBehavior, cachePolicy: pagedPolicy(queryKeys) },
    ]);

    const shadowed = routes.find((route) => route.path.startsWith(`${ASSETS_PATH}/`));
    if (shadowed)
      throw new Error(`Route ${shadowed.id} (${shadowed.path}) is under ${ASSETS_PATH}/, which the web bucket serves.`);
    const logBucket = this.accessLogBucket(settings);
    const assets = new WebAssetsBucket(this, 'WebAssets', {
      serverAccessLogsBucket: logBucket.serverAccessLogsBucket,
      responseHeadersPolicy,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Gleaner ${settings.stage}: public feeds and icons cached, the rest passed to the API`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      ...this.customDomain(settings),
      webAclId: this.webAclArn(settings),
      defaultBehavior: {
        origin: apiOrigin(api, settings),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        compress: true,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Authorization included (personal access tokens); Host is the API's own for API Gateway.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        responseHeadersPolicy,
      },
      // CloudFront takes the first pattern that matches: the paged routes' exact paths come before their prefix's.
      additionalBehaviors: Object.fromEntries([
        [`${ASSETS_PATH}/*`, assets.behavior],
        ...pagedBehaviors,
        ...cachedPathPatterns(routes).map((pattern) => [pattern, cachedBehavior]),
      ]),
      enableLogging: true,
      logBucket: logBucket.bucket,
      logFilePrefix: 'cloudfront/',
    });
    this.baseUrl = `https://${this.distribution.distributionDomainName}`;
    if (settings.domainName && settings.hostedZoneId) this.addAliasRecords(settings.domainName, settings.hostedZoneId);
    this.acknowledgeNagFindings({
      defaultCertificate: !settings.domainName,
      noWaf: !settings.waf && !settings.wafWebAclArn,
    });
  }

  /**
   * CloudFront sends the API's host as Host, so this keeps the viewer's in X-Forwarded-Host, which
   * the cached routes' functions would build addresses from were PUBLIC_BASE_URL not set (the stack
   * always sets it now; see `apiOrigin`). It keeps the cache key host-free.
   */
  private forwardViewerHost(): CloudFrontFunction {
    return new CloudFrontFunction(this, 'ForwardViewerHost', {
      comment: 'Copies the viewer Host header into X-Forwarded-Host for the origin',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var request = event.request;',
          "  request.headers['x-forwarded-host'] = { value: request.headers.host.value };",
          '  return request;',
          '}',
        ].join('\n'),
      ),
    });
  }

  /**
   * The security headers every answer gets, as aws-solutions-constructs sets by default: HTTPS only
   * for two years, no MIME sniffing, no framing (the embed is a script, not a frame), and no full
   * URL in the Referer of links leaving the site.
   */
  private securityHeaders(): ResponseHeadersPolicy {
    return new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Gleaner: HSTS, nosniff, frame options and referrer policy on every answer',
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
      },
    });
  }

  /** CloudFront standard logs, in a bucket whose own access is logged to a second one. */
  private accessLogBucket(settings: GleanerSettings): { bucket: Bucket; serverAccessLogsBucket: Bucket } {
    const logBucket: BucketProps = {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(settings.logRetentionDays) }],
    };
    // The target of server access logs is not logged itself (that would need yet another bucket).
    const serverAccessLogsBucket = new Bucket(this, 'ServerAccessLogs', logBucket);
    const bucket = new Bucket(this, 'AccessLogs', {
      ...logBucket,
      // CloudFront standard logging writes through bucket ACLs.
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      serverAccessLogsBucket,
      serverAccessLogsPrefix: 'cloudfront-logs/',
    });
    return { bucket, serverAccessLogsBucket };
  }

  /** The custom domain's name and certificate, with TLS 1.2 (2021 ciphers) as the lowest protocol. */
  private customDomain({ domainName, certificateArn }: GleanerSettings) {
    if (!domainName || !certificateArn) return {};
    return {
      domainNames: [domainName],
      certificate: Certificate.fromCertificateArn(this, 'Certificate', certificateArn),
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
    };
  }

  /** IPv4 and IPv6 alias records for the custom domain in its Route 53 zone. */
  private addAliasRecords(domainName: string, hostedZoneId: string): void {
    const zone = HostedZone.fromHostedZoneId(this, 'Zone', hostedZoneId);
    const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
    // The fully qualified name (trailing dot), as the zone's own name is not known here.
    const recordName = `${domainName}.`;
    new ARecord(this, 'AliasIpv4', { zone, recordName, target });
    new AaaaRecord(this, 'AliasIpv6', { zone, recordName, target });
  }

  /** The web ACL gleaner.waf creates, or the one gleaner.wafWebAclArn names. */
  private webAclArn(settings: GleanerSettings): string | undefined {
    if (settings.wafWebAclArn) return settings.wafWebAclArn;
    if (!settings.waf) return undefined;
    return new CdnWebAcl(this, 'WebAcl', { name: `gleaner-${settings.stage}`, rateLimit: settings.wafRateLimit }).webAcl
      .attrArn;
  }

  private acknowledgeNagFindings({ defaultCertificate, noWaf }: { defaultCertificate: boolean; noWaf: boolean }): void {
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Published feeds and icons are meant for readers anywhere; there is no jurisdiction to keep them from.',
    });
    if (noWaf) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR2',
        reason:
          'gleaner.waf is off (its default, to spare its monthly cost): reads are cached and rate-limited per viewer address in DynamoDB, and the API stage throttles bound what reaches the functions.',
      });
    }
    if (defaultCertificate) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a custom domain the distribution uses the default *.cloudfront.net certificate, with which CloudFront accepts no minimum protocol version (TLSv1 applies); gleaner.domainName with its certificate sets TLSv1.2_2021.',
      });
    }
  }
}

/**
 * The API stage as CloudFront's origin, named by the API's id and the stage's name rather than by
 * `restApi.url` (what RestApiOrigin reads), which refers to the stage resource and so to every
 * method and function. Depending on the RestApi resource alone, the distribution's domain can be
 * handed to the functions (PUBLIC_BASE_URL) without a dependency cycle.
 */
function apiOrigin(api: Api, settings: GleanerSettings, props: { customHeaders?: Record<string, string> } = {}) {
  return new HttpOrigin(`${api.restApi.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`, {
    ...props,
    originPath: `/${settings.stage}`,
    protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    originSslProtocols: [OriginSslPolicy.TLS_V1_2],
  });
}

/** The cache policy of every cached route, but for the query parameters in its key. */
const PUBLIC_CACHE_POLICY = {
  minTtl: Duration.seconds(0),
  // A response without Cache-Control is not cached.
  defaultTtl: Duration.seconds(0),
  // Icons are immutable (named by their content hash) and say so for a year.
  maxTtl: Duration.days(365),
  // Nothing per reader in the key: responses do not vary by reader, and If-None-Match /
  // If-Modified-Since are answered by CloudFront from the cached ETag and Last-Modified.
  headerBehavior: CacheHeaderBehavior.none(),
  cookieBehavior: CacheCookieBehavior.none(),
  enableAcceptEncodingGzip: true,
  enableAcceptEncodingBrotli: true,
} satisfies Omit<CachePolicyProps, 'comment' | 'queryStringBehavior'>;

/** The exact path pattern (`{param}` as `*`) of each cached route whose answer its query selects, with those keys. */
function pagedPathPatterns(routes: readonly RouteDefinition[]): { pattern: string; queryKeys: readonly string[] }[] {
  return routes
    .filter((route) => route.cdn && route.cacheQuery?.length)
    .map((route) => ({ pattern: route.path.replace(/\{[^}]+\}/g, '*'), queryKeys: route.cacheQuery! }));
}

/**
 * One path pattern per resource prefix of the cached routes: the path up to the first `{param}`
 * segment, then `*` (`/api/v2/publisher/feeds/*`, `/icons/*`). A route that is not cached must not
 * fall under one, or CloudFront would serve it as a cached GET.
 */
export function cachedPathPatterns(routes: readonly RouteDefinition[]): string[] {
  const patternOf = (path: string) => path.replace(/\{.*$/, '*');
  const patterns = [...new Set(routes.filter((route) => route.cdn).map((route) => patternOf(route.path)))];
  for (const route of routes.filter((candidate) => !candidate.cdn)) {
    const pattern = patterns.find((candidate) => route.path.startsWith(candidate.replace(/\*$/, '')));
    if (pattern)
      throw new Error(
        `Route ${route.id} (${route.path}) is not cached but falls under the cached path pattern ${pattern}.`,
      );
  }
  return patterns;
}
