import { askWorker } from './messages';
import { type ConnectionTest, saveEndpoint, testConnection } from './save-api';
import { checkServerUrl, checkToken, originPattern, SETTINGS_KEY, type Settings } from './settings';
import { failureMessage } from './wording';

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
  element('allow-access').addEventListener('click', allowAccess);
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

/** Origins whose access the person declined: never asked for again until they press "Allow access". */
const DECLINED_KEY = 'declined-origins';

async function saveSettings(): Promise<void> {
  const settings = checkedSettings();
  if (!settings) return;
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
  serverInput.value = settings.serverUrl;
  show('Saving…', '');
  const report = await connectionReport(settings);
  let sentNote = '';
  try {
    const sent = await askWorker({ type: 'settings-saved' });
    if (sent.length)
      sentNote = ` ${sent.filter((delivery) => delivery.kind === 'saved').length} of the waiting saves were sent.`;
  } catch (error) {
    sentNote = ` The waiting saves could not be sent: ${failureMessage(error)}`;
  }
  show(report.tone === 'ok' ? `Saved.${sentNote}` : `Saved. ${report.message}${sentNote}`, report.tone);
  await showQueueState();
}

async function runTest(): Promise<void> {
  const settings = checkedSettings();
  if (!settings) return;
  show('Testing…', '');
  const report = await connectionReport(settings);
  show(report.message, report.tone);
}

type Report = { readonly message: string; readonly tone: 'ok' | 'warn' | 'bad' };

/**
 * Tests the address and token. Host access is asked for only when CORS blocks the extension (a
 * Gleaner server answers `*`, so it normally does not), and not again once declined.
 */
async function connectionReport(settings: Settings): Promise<Report> {
  element('allow-access').hidden = true;
  const outcome = await testConnection(fetch, settings);
  if (outcome.kind === 'unreachable' && (await corsBlocks(settings))) {
    const pattern = originPattern(settings.serverUrl);
    if (!(await declinedOrigins()).includes(pattern)) {
      const granted = await chrome.permissions.request({ origins: [pattern] }).catch(() => null);
      if (granted !== null) await rememberAnswer(pattern, granted);
      if (granted) return connectionReport(settings);
    }
    element('allow-access').hidden = false;
    return {
      message: `The server at ${new URL(settings.serverUrl).host} does not let browser extensions call it (CORS), so Gleaner needs access to it. Saves wait until you allow it.`,
      tone: 'bad',
    };
  }
  return describeTest(outcome, settings);
}

function describeTest(outcome: ConnectionTest, settings: Settings): Report {
  switch (outcome.kind) {
    case 'accepted':
      return { message: `Token accepted by ${settings.serverUrl}.`, tone: 'ok' };
    case 'refused':
      return {
        message:
          'Token refused (401): it is revoked or belongs to another server. Create a new one in Gleaner under Settings › API tokens.',
        tone: 'bad',
      };
    case 'unreachable':
      return {
        message: `Server unreachable at ${settings.serverUrl}: is it running, and is the address right? (${outcome.message})`,
        tone: 'bad',
      };
    case 'rate-limited':
      return {
        message: `The server is rate limiting this token; try again in ${outcome.retryAfterSeconds ?? 60} s.`,
        tone: 'warn',
      };
    case 'not-gleaner':
      return {
        message: `The server answered ${outcome.status}: this does not look like a Gleaner address. Use the stack’s BaseUrl.`,
        tone: 'bad',
      };
  }
}

/**
 * True when the server answers but CORS keeps the extension from reading it: a `no-cors` request
 * (whose answer cannot be read, so CORS does not apply) gets through, and no host access is granted.
 */
async function corsBlocks(settings: Settings): Promise<boolean> {
  const pattern = originPattern(settings.serverUrl);
  if (await chrome.permissions.contains({ origins: [pattern] })) return false;
  return fetch(saveEndpoint(settings.serverUrl), { mode: 'no-cors', credentials: 'omit' }).then(
    () => true,
    () => false,
  );
}

/** "Allow access": asked for straight from the click, as browsers grant permissions only to a person's gesture. */
function allowAccess(): void {
  const settings = checkedSettings();
  if (!settings) return;
  const pattern = originPattern(settings.serverUrl);
  void chrome.permissions.request({ origins: [pattern] }).then(async (granted) => {
    await rememberAnswer(pattern, granted);
    if (granted) await runTest();
    else show(`Access to ${new URL(settings.serverUrl).host} was declined; saves cannot reach it.`, 'bad');
  });
}

async function declinedOrigins(): Promise<string[]> {
  return ((await chrome.storage.local.get(DECLINED_KEY))[DECLINED_KEY] as string[] | undefined) ?? [];
}

async function rememberAnswer(pattern: string, granted: boolean): Promise<void> {
  const others = (await declinedOrigins()).filter((declined) => declined !== pattern);
  await chrome.storage.local.set({ [DECLINED_KEY]: granted ? others : [...others, pattern] });
}

async function showQueueState(): Promise<void> {
  try {
    const state = await askWorker({ type: 'outbox' });
    element('token-refused').hidden = !state.tokenRefused;
    element('waiting-count').textContent = String(state.items.length);
  } catch (error) {
    show(`The waiting saves cannot be read: ${failureMessage(error)}`, 'bad');
  }
}

function show(message: string, tone: string): void {
  status.textContent = message;
  status.className = `status ${tone}`;
}

void main();
