import { Aws, CfnRule, Fn } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface CdnWebAclProps {
  readonly name: string;
  /** Requests one client address may make in 5 minutes. */
  readonly rateLimit: number;
}

/** Rules of the common rule set that would refuse what Gleaner takes by contract. */
const COMMON_RULES_COUNTED_ONLY = [
  // Saves carry selections and comments well over its 8 KB; the save function enforces its own limits.
  'SizeRestrictions_BODY',
  // Browser extensions save with a browser's User-Agent, but the CLI and scripts may send none.
  'NoUserAgent_HEADER',
];

/**
 * An AWS WAF web ACL for the CloudFront distribution: AWS's managed common rule set, then a
 * rate-based rule per client address. CloudFront web ACLs exist only in us-east-1, which a
 * template rule checks before anything is created.
 */
export class CdnWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, { name, rateLimit }: CdnWebAclProps) {
    super(scope, id);
    new CfnRule(this, 'InUsEast1', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'gleaner.waf creates a CloudFront web ACL, which must be in us-east-1: deploy there, or create one in us-east-1 and set gleaner.wafWebAclArn.',
        },
      ],
    });
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(name),
      rules: [
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 0,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              ruleActionOverrides: COMMON_RULES_COUNTED_ONLY.map((rule) => ({
                name: rule,
                actionToUse: { count: {} },
              })),
            },
          },
          visibilityConfig: visibility(`${name}-common`),
        },
        {
          name: 'RateLimitPerClient',
          priority: 1,
          action: { block: {} },
          statement: { rateBasedStatement: { limit: rateLimit, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          visibilityConfig: visibility(`${name}-rate`),
        },
      ],
    });
  }
}
