import { RemovalPolicy } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { RATE_LIMIT_KEY_PREFIX } from '../functions/adapters/dynamo/keys';
import type { ResourceAccess } from '../functions/platform/routes';
import { tableDefinition } from '../functions/platform/table-definition';

export type TableAccess = Extract<ResourceAccess, `table:${string}`>;

/** Partition keys of the rate-limit window items, the only items `table:rate-limit` may touch. */
const rateLimitKeyPattern = `${RATE_LIMIT_KEY_PREFIX}*`;

/** The single table, built from the shared definition the local stack uses too. */
export class DataTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const { partitionKey, sortKey, timeToLiveAttribute, streamView, globalSecondaryIndexes } = tableDefinition;
    this.table = new Table(this, 'Table', {
      partitionKey: stringAttribute(partitionKey),
      sortKey: stringAttribute(sortKey),
      timeToLiveAttribute,
      stream: StreamViewType[streamView],
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: stringAttribute(index.partitionKey),
        sortKey: stringAttribute(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
  }

  grant(grantee: IGrantable, access: TableAccess): Grant {
    switch (access) {
      case 'table:read':
        // Not grantReadData: no function needs its Scan or stream reads.
        return this.table.grant(
          grantee,
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:ConditionCheckItem',
        );
      case 'table:write':
        return this.table.grantWriteData(grantee);
      case 'table:rate-limit':
        return Grant.addToPrincipal({
          grantee,
          actions: ['dynamodb:UpdateItem'],
          resourceArns: [this.table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [rateLimitKeyPattern] } },
        });
    }
  }
}

function stringAttribute(name: string): Attribute {
  return { name, type: AttributeType.STRING };
}
