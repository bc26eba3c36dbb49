import { createHash } from 'node:crypto';

/**
 * Favicons are stored once per content (SHA-256) and served from the service's own address as
 * `/icons/<sha256>.<ext>`, so a URL never changes meaning and can be cached forever.
 */

export const ICON_MAX_BYTES = 100 * 1024;

export interface StoredIcon {
  readonly hash: string;
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

/** A site's favicon as last fetched: the icon URL (null when the site had none) and when. */
export interface SiteIcon {
  readonly icon: string | null;
  readonly fetchedAt: string | null;
}

/** Favicons by host (fetched at most once per host per refresh period) and icon bytes by content hash. */
export interface SiteStore {
  getSite(host: string): Promise<SiteIcon | null>;
  /** Takes the right to fetch `host`'s favicon now, unless it is fresh or another worker holds it. */
  claimFetch(host: string, now: Date, staleBefore: Date, claimSeconds: number): Promise<boolean>;
  recordFetch(host: string, icon: string | null, fetchedAt: Date): Promise<void>;
  /** Stores icon bytes once per content hash (a second store of the same bytes changes nothing). */
  putIcon(icon: StoredIcon): Promise<void>;
  getIcon(hash: string): Promise<StoredIcon | null>;
}

/** Image types accepted as favicons, with the file extension each is served under. */
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/x-icon': 'ico',
  'image/vnd.microsoft.icon': 'ico',
  'image/svg+xml': 'svg',
  'image/gif': 'gif',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/bmp': 'bmp',
};

/** The media type of a Content-Type header value when it is an accepted image type, else null. */
export function iconMediaType(contentType: string | null): string | null {
  const mediaType = (contentType?.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType in EXTENSIONS ? mediaType : null;
}

export function iconFileName(bytes: Uint8Array, mediaType: string): { hash: string; fileName: string } {
  const hash = createHash('sha256').update(bytes).digest('hex');
  return { hash, fileName: `${hash}.${EXTENSIONS[mediaType] ?? 'bin'}` };
}

/** `<sha256>.<ext>` → the hash, or null for anything else. */
export function parseIconFileName(fileName: string | undefined): string | null {
  const match = /^([0-9a-f]{64})\.[a-z]{2,4}$/.exec(fileName ?? '');
  return match ? match[1]! : null;
}

export function iconUrl(publicBaseUrl: string, fileName: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/icons/${fileName}`;
}

/** Response headers for serving an icon: immutable caching, no sniffing, no scripts in SVG. */
export function iconHeaders(mediaType: string): Record<string, string> {
  return {
    'Content-Type': mediaType,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    ...(mediaType === 'image/svg+xml'
      ? { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" }
      : {}),
  };
}
