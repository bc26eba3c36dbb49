import { TOKEN_PREFIX, tokenProblem } from '../../functions/core/wire/token-format';

/**
 * The extension's two settings: the server address and the personal access token. Both live in
 * `chrome.storage.local` only (never `sync`), and the token is sent to that server and nowhere else.
 */
export interface Settings {
  /** The stack's BaseUrl (a stage path is kept), without a trailing slash. */
  readonly serverUrl: string;
  readonly token: string;
}

export const SETTINGS_KEY = 'settings';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A server address the token may be sent to: https, or http on this machine only (npm start). */
export function checkServerUrl(input: string): Checked<string> {
  const text = input.trim();
  if (!text)
    return {
      ok: false,
      message: 'Enter the server address: the stack’s BaseUrl, or http://localhost:3000 for npm start.',
    };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'That is not a web address. It looks like https://d1234abcd.cloudfront.net' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    return {
      ok: false,
      message:
        'Use an https:// address; http:// is only for a server on this computer, where the token never crosses a network.',
    };
  }
  if (url.username || url.password || url.search || url.hash) {
    return { ok: false, message: 'Enter the address alone, without a user name, query or #fragment.' };
  }
  return { ok: true, value: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

const TOKEN_MESSAGES = {
  prefix: `A Gleaner token starts with “${TOKEN_PREFIX}_”. Create one in Gleaner under Settings › API tokens.`,
  shape: `A Gleaner token is “${TOKEN_PREFIX}_” followed by 36 letters and digits. Was it copied whole?`,
  checksum: 'This token’s checksum does not match: a character was changed or lost when it was copied.',
} as const;

/** The pasted token, checked by the server's own rule (prefix and checksum) before it is stored. */
export function checkToken(input: string): Checked<string> {
  const token = input.trim();
  if (!token) return { ok: false, message: 'Paste your personal access token.' };
  const problem = tokenProblem(token);
  return problem ? { ok: false, message: TOKEN_MESSAGES[problem] } : { ok: true, value: token };
}

/** The match pattern of the server's origin, requested as an optional host permission. */
export function originPattern(serverUrl: string): string {
  const url = new URL(serverUrl);
  // Match patterns carry no port: http://127.0.0.1:3000 is covered by http://127.0.0.1/*.
  return `${url.protocol}//${url.hostname}/*`;
}
