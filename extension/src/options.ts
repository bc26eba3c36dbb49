import { askWorker } from './messages';
import { testConnection } from './save-api';
import { checkServerUrl, checkToken, originPattern, SETTINGS_KEY, type Settings } from './settings';

/** The options page: the server address and the token, checked before they are stored. */

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const serverInput = element<HTMLInputElement>('server-url');
const tokenInput = element<HTMLInputElement>('token');
const status = element<HTMLParagraphElement>('status');

async function main(): Promise<void> {
  const stored = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Settings | undefined;
  serverInput.value = stored?.serverUrl ?? '';
  tokenInput.value = stored?.token ?? '';
  await showQueueState();
  const [command] = (await chrome.commands.getAll()).filter((candidate) => candidate.name === 'save-page');
  if (command?.shortcut) element('shortcut').textContent = command.shortcut;

  element<HTMLFormElement>('settings-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void saveSettings();
  });
  element('test').addEventListener('click', () => void runTest());
}

/** Both fields checked; the first problem is shown next to its field. */
function checkedSettings(): Settings | null {
  const server = checkServerUrl(serverInput.value);
  const token = checkToken(tokenInput.value);
  for (const [input, check] of [
    [serverInput, server],
    [tokenInput, token],
  ] as const)
    input.setAttribute('aria-invalid', String(!check.ok));
  if (!server.ok) return fail(server.message, serverInput);
  if (!token.ok) return fail(token.message, tokenInput);
  return { serverUrl: server.value, token: token.value };
}

function fail(message: string, input: HTMLInputElement): null {
  show(message, 'bad');
  input.focus();
  return null;
}

/**
 * Asks for access to the server's origin only. Called straight from the click, before anything is
 * awaited, because the browser grants permissions only in answer to a person's gesture.
 */
function requestServerAccess(settings: Settings): Promise<boolean> {
  return chrome.permissions.request({ origins: [originPattern(settings.serverUrl)] }).catch(() => false);
}

async function saveSettings(): Promise<void> {
  const settings = checkedSettings();
  if (!settings) return;
  const access = requestServerAccess(settings);
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
  serverInput.value = settings.serverUrl;
  const granted = await access;
  const sent = await askWorker({ type: 'settings-saved' });
  const sentNote = sent.length
    ? ` ${sent.filter((delivery) => delivery.kind === 'saved').length} of the waiting saves were sent.`
    : '';
  show(
    granted
      ? `Saved.${sentNote}`
      : `Saved, but without access to ${new URL(settings.serverUrl).host}: saves then work only if the server allows this extension (CORS).${sentNote}`,
    granted ? 'ok' : 'warn',
  );
  await showQueueState();
}

async function runTest(): Promise<void> {
  const settings = checkedSettings();
  if (!settings) return;
  const access = requestServerAccess(settings);
  show('Testing…', '');
  await access;
  const outcome = await testConnection(fetch, settings);
  switch (outcome.kind) {
    case 'accepted':
      return show(`Token accepted by ${settings.serverUrl}.`, 'ok');
    case 'refused':
      return show(
        'Token refused (401): it is revoked or belongs to another server. Create a new one with npx gleaner tokens create.',
        'bad',
      );
    case 'unreachable':
      return show(
        `Server unreachable at ${settings.serverUrl}: is it running, and is the address right? (${outcome.message})`,
        'bad',
      );
    case 'rate-limited':
      return show(`The server is rate limiting this token; try again in ${outcome.retryAfterSeconds ?? 60} s.`, 'warn');
    case 'not-gleaner':
      return show(
        `The server answered ${outcome.status}: this does not look like a Gleaner address. Use the stack’s BaseUrl.`,
        'bad',
      );
  }
}

async function showQueueState(): Promise<void> {
  const state = await askWorker({ type: 'outbox' });
  element('token-refused').hidden = !state.tokenRefused;
  element('waiting-count').textContent = String(state.items.length);
}

function show(message: string, tone: string): void {
  status.textContent = message;
  status.className = `status ${tone}`;
}

void main();
