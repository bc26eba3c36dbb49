/** The prices `npm run cost` and the search cost model (bench/search-cost-model.ts) use, in one place. */

/** Published us-east-1 list prices (on-demand, beyond free tiers), as of this date. Re-check before relying on them. */
export const PRICES_AS_OF = '2024-11-01';
export const PRICES = {
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  apiGatewayRestRequest: 3.5 / 1e6,
  sqsRequest: 0.4 / 1e6,
  cloudFrontHttpsRequest: 0.01 / 1e4,
  cloudFrontTransferGb: 0.085,
  lambdaX86GbSecond: 0.0000166667,
  titanV2PerThousandTokens: 0.00002,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3GbMonth: 0.023,
} as const;
const perMillion = (price: number) => `$${(price * 1e6).toFixed(3)} per million`;
export const PRICE_UNITS: Record<keyof typeof PRICES, (price: number) => string> = {
  lambdaArmGbSecond: (price) => `$${price} per GB-second`,
  lambdaRequest: perMillion,
  dynamoWriteUnit: perMillion,
  dynamoReadUnit: perMillion,
  apiGatewayRestRequest: perMillion,
  sqsRequest: perMillion,
  cloudFrontHttpsRequest: perMillion,
  cloudFrontTransferGb: (price) => `$${price} per GB`,
  lambdaX86GbSecond: (price) => `$${price} per GB-second`,
  titanV2PerThousandTokens: (price) => `$${price} per 1,000 tokens`,
  s3Put: perMillion,
  s3Get: perMillion,
  s3GbMonth: (price) => `$${price} per GB-month`,
};

/**
 * Managed search engines' us-east-1 list prices, for the search cost model's comparison
 * (bench/search-cost-model.ts, docs/search.md), each with the page that publishes it and the date of
 * the figure. AWS's pages are not reachable from the machine the model was written on (2026-11-28):
 * these are the published figures as known then, not re-read; re-check before relying on them.
 */
export const MANAGED_SEARCH_PRICES = {
  /** An OpenSearch Compute Unit (1 vCPU, 6 GB of memory, 120 GB of local storage) an hour, indexing or search. */
  openSearchServerlessOcuHour: {
    price: 0.24,
    source: 'https://aws.amazon.com/opensearch-service/pricing/ (Serverless OCU-hour), unchanged since 2023-01',
  },
  /** The smallest production collection: 0.5 OCU indexing and 0.5 OCU search, each in two zones. */
  openSearchServerlessMinimumOcus: {
    price: 2,
    source:
      'https://aws.amazon.com/blogs/big-data/amazon-opensearch-serverless-cost-effective-search-capabilities-at-any-scale (half OCUs, 2024)',
  },
  openSearchServerlessStorageGbMonth: {
    price: 0.024,
    source: 'https://aws.amazon.com/opensearch-service/pricing/ (Serverless managed storage), unchanged since 2023-01',
  },
  /** S3 Vectors: logical bytes stored (vector, key and metadata) a GB-month. */
  s3VectorsStorageGbMonth: {
    price: 0.06,
    source: 'https://aws.amazon.com/s3/pricing/ (S3 Vectors), as published at launch, 2025-07-15',
  },
  /** S3 Vectors: logical bytes written a GB. */
  s3VectorsPutGb: {
    price: 0.2,
    source: 'https://aws.amazon.com/s3/pricing/ (S3 Vectors), as published at launch, 2025-07-15',
  },
  s3VectorsQueryRequest: {
    price: 2.5 / 1e6,
    source: 'https://aws.amazon.com/s3/pricing/ (S3 Vectors), as published at launch, 2025-07-15',
  },
  /**
   * S3 Vectors: a query is charged for the whole index it searches (its vectors' logical bytes), a TB;
   * $0.004 for an index's first 100,000 vectors, this beyond. A cut of up to 80% for indexes over 10
   * million vectors was announced 2026-06-16 (https://dev.classmethod.jp/en/articles/20260616-s3-vectors-query-charges/),
   * without figures there: not applied.
   */
  s3VectorsQueryTb: {
    price: 0.004,
    source: 'https://aws.amazon.com/s3/pricing/ (S3 Vectors), as published at launch, 2025-07-15',
  },
} as const;
