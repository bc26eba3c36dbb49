/**
 * Saved-URL rules: which URLs a bookmark may hold, and when two URLs are "the same page".
 */

export const URL_MAX_LENGTH = 2048;
/** DNS's limit on a name (RFC 1035), in the ASCII (punycode) form; it also keeps `SITE#<host>` keys small. */
export const HOST_MAX_LENGTH = 253;

/** Query parameters that identify a campaign or click, not a page; dropped when comparing URLs. */
const TRACKING_PARAMETERS = new Set([
  'fbclid',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'igshid',
  'li_fat_id',
  'mc_cid',
  'mc_eid',
  'mkt_tok',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'vero_conv',
  'wickedid',
  's_cid',
  'srsltid',
]);
const TRACKING_PREFIXES = ['utm_', 'pk_', 'mtm_'];

export type UrlProblem =
  | 'url_parsing'
  | 'url_scheme'
  | 'url_too_long'
  | 'host_too_long'
  | 'host_invalid'
  | 'port_invalid';

/**
 * Parses a user-supplied bookmark URL: absolute, http(s), with a host of at most 253 characters once
 * punycoded whose every label is a DNS label, a port that is not 0, and at most 2048 characters as
 * stored (escaped: 2,048 `é` become 12,000-odd). Credentials (`user:pass@`) are dropped: they would
 * otherwise be stored and shown in published feeds.
 */
export function parseBookmarkUrl(input: string): { ok: true; url: URL } | { ok: false; problem: UrlProblem } {
  if (input.length > URL_MAX_LENGTH) return { ok: false, problem: 'url_too_long' };
  if (!URL.canParse(input.trim())) return { ok: false, problem: 'url_parsing' };
  const url = new URL(input.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'url_scheme' };
  if (!url.hostname) return { ok: false, problem: 'url_parsing' };
  if (url.hostname.replace(/\.$/, '').length > HOST_MAX_LENGTH) return { ok: false, problem: 'host_too_long' };
  if (!isHostName(url.hostname)) return { ok: false, problem: 'host_invalid' };
  if (url.port === '0') return { ok: false, problem: 'port_invalid' };
  url.username = '';
  url.password = '';
  const stored = escapeOutsideUriSyntax(url);
  return stored.href.length > URL_MAX_LENGTH ? { ok: false, problem: 'url_too_long' } : { ok: true, url: stored };
}

/** A DNS label (RFC 1123): 1–63 letters, digits, hyphens (and, seen in the wild, underscores), no hyphen at either end. */
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * An IP address (WHATWG parsing has already normalised it) or a name whose labels are all DNS
 * labels, a trailing dot allowed: not `.example.com`, `a..b.example` or `-leading.example`.
 */
function isHostName(hostname: string): boolean {
  if (hostname.startsWith('[')) return true;
  return hostname
    .replace(/\.$/, '')
    .split('.')
    .every((label) => LABEL.test(label));
}

/** A `%` that starts no escape, or a character RFC 3986 allows nowhere in a path, query or fragment. */
const NOT_URI_SYNTAX = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#%]/g;

/**
 * WHATWG URL parsing leaves `|`, `^`, `{`, `[`, a stray `%` and others as written, so its href is not
 * always an RFC 3986 URI (which the contract promises for `url`). Escaping them names the same page.
 */
function escapeOutsideUriSyntax(url: URL): URL {
  const escaped = new URL(url.href);
  const escapePart = (part: string) => part.replace(NOT_URI_SYNTAX, (char) => encodeURIComponent(char));
  escaped.pathname = escapePart(url.pathname);
  escaped.search = escapePart(url.search);
  escaped.hash = escapePart(url.hash);
  return escaped;
}

/**
 * The identity of a saved page: scheme and host lower-cased and the default port dropped (WHATWG URL
 * parsing does both), `#fragment` and tracking parameters dropped, everything else kept as written.
 */
export function normalizeUrl(url: URL): string {
  const normalized = new URL(url.href);
  normalized.hash = '';
  // Filter the raw query piece by piece: re-serialising it would re-encode what the page wrote.
  const kept = normalized.search
    .slice(1)
    .split('&')
    .filter((piece) => piece && !isTrackingParameter(decodeQueryName(piece)));
  normalized.search = kept.join('&');
  return normalized.search ? normalized.href : normalized.href.replace(/\?$/, '');
}

function decodeQueryName(piece: string): string {
  const name = piece.split('=')[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

function isTrackingParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return TRACKING_PARAMETERS.has(lower) || TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix));
}
