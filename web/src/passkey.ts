import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

/**
 * The passkey buttons of the Sign in and Account pages. The pages work without it (password sign-in);
 * it only reveals the passkey controls where the browser supports WebAuthn.
 */

const CSRF_HEADER = 'X-CSRF-Token';

function showError(container: Element, message: string): void {
  const error = container.querySelector<HTMLElement>('[data-passkey-error]');
  if (!error) return;
  error.textContent = message;
  error.hidden = false;
}

async function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function detail(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    return typeof body.detail === 'string' ? body.detail : `The server answered ${response.status}`;
  } catch {
    return `The server answered ${response.status}`;
  }
}

function setUpSignIn(container: HTMLElement): void {
  const button = container.querySelector<HTMLButtonElement>('[data-passkey-sign-in-button]');
  if (!button) return;
  container.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const options = await postJson('/signin/passkey/options', {});
      if (!options.ok) return showError(container, await detail(options));
      const response = await startAuthentication({ optionsJSON: await options.json() });
      const result = await postJson('/signin/passkey', { response, next: button.dataset.next ?? '' });
      if (!result.ok) return showError(container, await detail(result));
      const { location } = (await result.json()) as { location: string };
      window.location.assign(location);
    } catch (error) {
      showError(container, error instanceof Error ? error.message : String(error));
    } finally {
      button.disabled = false;
    }
  });
}

function setUpRegistration(container: HTMLElement): void {
  const button = container.querySelector<HTMLButtonElement>('[data-passkey-register-button]');
  const label = container.querySelector<HTMLInputElement>('[data-passkey-label]');
  if (!button) return;
  container.hidden = false;
  const headers = { [CSRF_HEADER]: button.dataset.csrf ?? '' };
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const options = await postJson('/account/passkeys/options', {}, headers);
      if (!options.ok) return showError(container, await detail(options));
      const response = await startRegistration({ optionsJSON: await options.json() });
      const result = await postJson('/account/passkeys', { response, label: label?.value ?? '' }, headers);
      if (!result.ok) return showError(container, await detail(result));
      window.location.reload();
    } catch (error) {
      showError(container, error instanceof Error ? error.message : String(error));
    } finally {
      button.disabled = false;
    }
  });
}

if (browserSupportsWebAuthn()) {
  for (const container of document.querySelectorAll<HTMLElement>('[data-passkey-sign-in]')) setUpSignIn(container);
  for (const container of document.querySelectorAll<HTMLElement>('[data-passkey-register]'))
    setUpRegistration(container);
}
