import { badgeFor } from './badge';
import { deliveryMessage, type WorkerRequest } from './messages';
import { type Delivery, Outbox, type OutboxState, type SaveSource } from './outbox';
import { capturePage } from './page-capture';
import { isSavable } from './page-text';
import { postSave } from './save-api';
import { SETTINGS_KEY, type Settings } from './settings';

/**
 * The service worker. Every listener is registered at the top level, as Manifest V3 requires: the
 * browser stops the worker when idle and starts it again for the next event. All state is in
 * `chrome.storage.local`; retries are `chrome.alarms`.
 */

const OUTBOX_KEY = 'outbox';
const FLUSH_ALARM = 'gleaner-outbox';
const MENU_SAVE_SELECTION = 'save-selection';
const MENU_SAVE_PAGE = 'save-page';
const COMMAND_SAVE_PAGE = 'save-page';
/** A send that has not answered by then counts as unreachable and is retried. */
const SEND_TIMEOUT_MS = 20_000;

const outbox = new Outbox({
  load: async () => (await chrome.storage.local.get(OUTBOX_KEY))[OUTBOX_KEY] as OutboxState | undefined,
  store: (state) => chrome.storage.local.set({ [OUTBOX_KEY]: state }),
  send: async (item, { append }) => {
    const settings = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Settings | undefined;
    if (!settings) return { kind: 'not-configured' };
    const fetchWithTimeout: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
    return postSave(fetchWithTimeout, settings, { ...item.request, append }, item.id);
  },
  now: Date.now,
  random: Math.random,
  newId: () => crypto.randomUUID(),
});

chrome.runtime.onInstalled.addListener((details) => {
  chrome.contextMenus.removeAll(() => {
    chrome.contextMenus.create({
      id: MENU_SAVE_SELECTION,
      title: 'Save selection to Gleaner',
      contexts: ['selection'],
    });
    chrome.contextMenus.create({ id: MENU_SAVE_PAGE, title: 'Save page to Gleaner', contexts: ['page'] });
  });
  if (details.reason === 'install') void chrome.runtime.openOptionsPage();
  void outbox.flush().then(afterwards);
});
chrome.runtime.onStartup.addListener(() => void outbox.flush().then(afterwards));
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === FLUSH_ALARM) void outbox.flush().then(afterwards);
});
chrome.contextMenus.onClicked.addListener((info, tab) => void handleMenuClick(info, tab));
chrome.commands.onCommand.addListener((command, tab) => void handleCommand(command, tab));
chrome.notifications.onClicked.addListener((id) => {
  if (id.startsWith('attention')) void chrome.runtime.openOptionsPage();
  void chrome.notifications.clear(id);
});
chrome.runtime.onMessage.addListener((request: WorkerRequest, _sender, reply) => {
  answer(request).then(reply, (error: unknown) => reply({ error: String(error) }));
  return true; // the reply comes asynchronously
});

async function answer(request: WorkerRequest): Promise<unknown> {
  switch (request.type) {
    case 'save': {
      const { delivery, sent } = await outbox.add(request.request, 'popup');
      // The popup shows this save's outcome itself; other saves sent along are notified as usual.
      await afterwards(sent, { quietFor: delivery.item.id });
      return delivery;
    }
    case 'outbox':
      return outbox.state();
    case 'retry-now':
      return afterwards(await outbox.retryNow());
    case 'discard':
      await outbox.discard(request.id);
      await afterwards([]);
      return outbox.state();
    case 'settings-saved':
      return afterwards(await outbox.resume());
  }
}

async function handleMenuClick(
  info: chrome.contextMenus.OnClickData,
  tab: chrome.tabs.Tab | undefined,
): Promise<Delivery | null> {
  if (!tab || (info.menuItemId !== MENU_SAVE_SELECTION && info.menuItemId !== MENU_SAVE_PAGE)) return null;
  return saveTab(tab, 'context-menu', { selectionText: info.selectionText, frameId: info.frameId });
}

async function handleCommand(command: string, tab: chrome.tabs.Tab | undefined): Promise<Delivery | null> {
  if (command !== COMMAND_SAVE_PAGE) return null;
  const target = tab ?? (await chrome.tabs.query({ active: true, lastFocusedWindow: true }))[0];
  return target ? saveTab(target, 'command') : null;
}

/** An instant save (context menu, keyboard command): no window opens; the badge and notifications answer. */
async function saveTab(
  tab: chrome.tabs.Tab,
  source: SaveSource,
  hint: { selectionText?: string; frameId?: number } = {},
): Promise<Delivery | null> {
  if (!isSavable(tab.url)) {
    notify('attention-unsavable', 'Nothing to save here', 'Gleaner saves web pages (http and https addresses) only.');
    return null;
  }
  const page = await capturePage(tab, hint);
  if (!page.readable) {
    notify(
      'info-unreadable',
      'Saving the address only',
      'This browser does not let extensions read this page, so no selection could be read. The address and title are saved.',
    );
  }
  const { delivery, sent } = await outbox.add(page.request, source);
  await afterwards(sent, { flashSaved: delivery.kind === 'saved' });
  return delivery;
}

/**
 * After any outbox operation: notifications for saves that need the person, the badge, and the alarm
 * for the next retry.
 */
async function afterwards(
  deliveries: Delivery[],
  options: { quietFor?: string; flashSaved?: boolean } = {},
): Promise<Delivery[]> {
  for (const delivery of deliveries) if (delivery.item.id !== options.quietFor) notifyAbout(delivery);
  const state = await outbox.state();
  await showBadge(state, options.flashSaved === true);
  const wake = Outbox.nextWake(state);
  if (wake === null) await chrome.alarms.clear(FLUSH_ALARM);
  else await chrome.alarms.create(FLUSH_ALARM, { when: Math.max(wake, Date.now() + 1_000) });
  return deliveries;
}

function notifyAbout(delivery: Delivery): void {
  const title = delivery.item.request.title ?? delivery.item.request.url;
  switch (delivery.kind) {
    case 'token-refused':
      return notify(
        'attention-token',
        'Gleaner refused your token',
        `${deliveryMessage(delivery)} Click to open the options.`,
      );
    case 'held':
      return notify(`attention-held-${delivery.item.id}`, `Not saved yet: ${title}`, deliveryMessage(delivery));
    case 'dropped':
      return notify(
        `dropped-${delivery.item.id}`,
        `Gleaner refused a save: ${title}`,
        delivery.field ? `${delivery.field}: ${delivery.reason}` : delivery.reason,
      );
    case 'saved':
    case 'queued':
      return; // the badge says it
  }
}

function notify(id: string, title: string, message: string): void {
  void chrome.notifications.create(id, { type: 'basic', iconUrl: 'icons/icon-128.png', title, message });
}

let clearSavedMark: ReturnType<typeof setTimeout> | undefined;

async function showBadge(state: OutboxState, justSaved: boolean): Promise<void> {
  const look = badgeFor(state, justSaved);
  await Promise.all([
    chrome.action.setBadgeText({ text: look.text }),
    chrome.action.setBadgeBackgroundColor({ color: look.color }),
    chrome.action.setTitle({ title: look.title }),
  ]);
  clearTimeout(clearSavedMark);
  if (justSaved && look.text === '✓')
    clearSavedMark = setTimeout(() => void outbox.state().then((latest) => showBadge(latest, false)), 4_000);
}

/** For DevTools and the end-to-end test: the instant-save paths, as the menu and the command call them. */
Object.assign(globalThis, { gleanerWorker: { handleCommand, handleMenuClick, outbox } });
