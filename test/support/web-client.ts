import { randomUUID } from 'node:crypto';
import { DynamoIdentityStore } from '../../functions/adapters/dynamo/identity-store';
import { hashPassword } from '../../functions/core/identity/password';
import { newUser } from '../../functions/core/workspace/accounts';
import type { TestStack } from './local-stack';

/**
 * A browser without a browser, for HTTP tests of the web app: it keeps cookies by name (every cookie
 * on every request to the stack, which the server reads by name), follows redirects within the stack
 * when asked, and reads a page's CSRF token.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, this.baseUrl);
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(cookie ? { Cookie: cookie } : {}), ...(init.headers as Record<string, string> | undefined) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some(
        (attribute) => /^\s*max-age=0\s*$/i.test(attribute) || /expires=Thu, 01 Jan 1970/i.test(attribute),
      );
      if (expired || value.join('=') === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    return response;
  }

  /** A form POST (url-encoded), as a browser sends it. */
  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** GETs `path` and follows redirects while they stay on the stack; the last answer and its URL. */
  async follow(path: string): Promise<{ response: Response; url: string }> {
    let url = new URL(path, this.baseUrl).toString();
    for (let hop = 0; hop < 10; hop++) {
      const response = await this.request(url);
      const location = response.headers.get('location');
      if (!location || response.status < 300 || response.status >= 400) return { response, url };
      const next = new URL(location, url);
      if (next.origin !== new URL(this.baseUrl).origin) return { response, url: next.toString() };
      url = next.toString();
    }
    throw new Error(`more than 10 redirects from ${path}`);
  }
}

/** The CSRF token in a page's forms. */
export function csrfTokenOf(html: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

/** A user with a confirmed email login, made in the table (the browser test covers signing up). */
export async function createLoginUser(t: TestStack, email: string, password: string) {
  const now = new Date();
  const user = newUser({ id: randomUUID(), name: email.split('@')[0]!, now });
  await new DynamoIdentityStore(t.table.doc, t.table.tableName).createUserWithLogin(user, {
    email,
    userId: user.id,
    passwordHash: await hashPassword(password),
    verified: true,
    created: now.toISOString(),
  });
  return user;
}

/** A WebClient signed in as `email`. */
export async function signedIn(t: TestStack, email: string, password: string): Promise<WebClient> {
  const client = new WebClient(t.stack.webBaseUrl);
  const response = await client.post('/signin', { email, password });
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`);
  return client;
}
