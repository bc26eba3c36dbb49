import { describe, expect, it } from 'vitest';
import { checkRetirement, retirementHeaders } from '../../functions/core/contract/retirement';
import { checkRouteTable, routes } from '../../functions/platform/routes';

const link = 'https://docs.example/retiring-v1';

describe('checkRetirement', () => {
  it('accepts a sunset exactly six months after the deprecation', () => {
    expect(() =>
      checkRetirement('Old', { deprecatedAt: '2027-01-15T00:00:00Z', sunsetAt: '2027-07-15T00:00:00Z', link }),
    ).not.toThrow();
  });

  it('refuses a sunset less than six months after the deprecation, naming the route and the earliest sunset', () => {
    expect(() =>
      checkRetirement('Old', { deprecatedAt: '2027-01-15T00:00:00Z', sunsetAt: '2027-07-14T23:59:59Z', link }),
    ).toThrow(
      /^Route Old: sunsetAt 2027-07-14T23:59:59.000Z is less than 6 months after deprecatedAt .*sunset on 2027-07-15T00:00:00.000Z or later/,
    );
  });

  it('refuses a sunset before the deprecation', () => {
    expect(() =>
      checkRetirement('Old', { deprecatedAt: '2027-01-15T00:00:00Z', sunsetAt: '2026-01-15T00:00:00Z', link }),
    ).toThrow(/less than 6 months/);
  });

  it.each([
    [{ deprecatedAt: 'soon', sunsetAt: '2028-01-01T00:00:00Z', link }, /deprecatedAt "soon" is not a date/],
    [{ deprecatedAt: '2027-01-01T00:00:00Z', sunsetAt: 'later', link }, /sunsetAt "later" is not a date/],
    [
      { deprecatedAt: '2027-01-01T00:00:00Z', sunsetAt: '2028-01-01T00:00:00Z', link: '/relative' },
      /link "\/relative" is not an absolute URL/,
    ],
  ])('refuses %j', (retirement, message) => {
    expect(() => checkRetirement('Old', retirement)).toThrow(message);
  });

  it('is applied to a whole route table', () => {
    expect(() => checkRouteTable(routes)).not.toThrow();
    const retiring = {
      ...routes[0]!,
      retirement: { deprecatedAt: '2027-01-01T00:00:00Z', sunsetAt: '2027-03-01T00:00:00Z', link },
    };
    expect(() => checkRouteTable([retiring])).toThrow(`Route ${retiring.id}: sunsetAt`);
  });
});

describe('retirementHeaders', () => {
  it('writes Deprecation as RFC 9745 epoch seconds, Sunset as an RFC 8594 HTTP-date, and links both', () => {
    expect(retirementHeaders({ deprecatedAt: '2027-01-15T12:00:00Z', sunsetAt: '2027-07-15T00:00:00Z', link })).toEqual(
      {
        Deprecation: '@1800014400',
        Sunset: 'Thu, 15 Jul 2027 00:00:00 GMT',
        Link: `<${link}>; rel="deprecation", <${link}>; rel="sunset"`,
      },
    );
  });
});
