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
