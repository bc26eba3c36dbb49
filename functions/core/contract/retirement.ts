/**
 * Retiring a route, as the contract's versioning rules ask: every answer announces it with
 * `Deprecation` (RFC 9745, `@<epoch-seconds>`), `Sunset` (RFC 8594, an HTTP-date) and links to the
 * retirement notice, at least six months before the route goes away.
 */

export interface Retirement {
  /** When the route was (or will be) deprecated: an ISO 8601 date-time. */
  readonly deprecatedAt: string;
  /** When the route stops answering: at least MINIMUM_NOTICE_MONTHS after `deprecatedAt`. */
  readonly sunsetAt: string;
  /** Where users read about the retirement and what replaces the route. */
  readonly link: string;
}

/** The contract's minimum notice between deprecation and removal. */
const MINIMUM_NOTICE_MONTHS = 6;

/** Throws a message naming the route when the dates are invalid or the notice is too short. */
export function checkRetirement(routeId: string, retirement: Retirement): void {
  const deprecated = new Date(retirement.deprecatedAt);
  const sunset = new Date(retirement.sunsetAt);
  const problem = (message: string) => new Error(`Route ${routeId}: ${message}`);
  if (Number.isNaN(deprecated.getTime())) throw problem(`deprecatedAt "${retirement.deprecatedAt}" is not a date`);
  if (Number.isNaN(sunset.getTime())) throw problem(`sunsetAt "${retirement.sunsetAt}" is not a date`);
  if (!URL.canParse(retirement.link)) throw problem(`link "${retirement.link}" is not an absolute URL`);
  const earliestSunset = new Date(deprecated);
  earliestSunset.setUTCMonth(earliestSunset.getUTCMonth() + MINIMUM_NOTICE_MONTHS);
  if (sunset < earliestSunset) {
    throw problem(
      `sunsetAt ${sunset.toISOString()} is less than ${MINIMUM_NOTICE_MONTHS} months after deprecatedAt ${deprecated.toISOString()}; ` +
        `the contract promises at least ${MINIMUM_NOTICE_MONTHS} months of notice (sunset on ${earliestSunset.toISOString()} or later)`,
    );
  }
}

export function retirementHeaders(retirement: Retirement): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(new Date(retirement.deprecatedAt).getTime() / 1000)}`,
    Sunset: new Date(retirement.sunsetAt).toUTCString(),
    Link: `<${retirement.link}>; rel="deprecation", <${retirement.link}>; rel="sunset"`,
  };
}

/** The retirement a handler is configured with (`ROUTE_RETIREMENT`, JSON), or null. */
export function parseRetirement(value: string | undefined): Retirement | null {
  return value ? (JSON.parse(value) as Retirement) : null;
}
