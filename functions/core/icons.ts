import { createHash } from 'node:crypto';

/**
 * Favicons are stored once per content (SHA-256) and served from the service's own address as
 * `/icons/<sha256>.<ext>`, so a URL never changes meaning and can be cached forever.
 */

export const ICON_MAX_BYTES = 100 * 1024;

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
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
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
    ...(mediaType === 'image/svg+xml' ? { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" } : {}),
  };
}
