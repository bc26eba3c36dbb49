import { badgeFor } from './badge';
import { type WorkerRequest, workerFailure } from './messages';
import { type Delivery, Outbox, type OutboxState, type SaveSource } from './outbox';
import { capturePage } from './page-capture';
import { fitUrl, isSavable, tooLongMessage } from './page-text';
import { postSave } from './save-api';
import { SETTINGS_KEY, type Settings } from './settings';
import { failureNotification, type NotificationText, notificationFor } from './wording';

/**
 * The service worker. Every listener is registered synchronously when the worker script runs, as
 * Manifest V3 requires: the browser stops the worker when idle and starts it again for the next
 * event. All state is in `chrome.storage.local`; retries are `chrome.alarms`. `background.ts` starts
 * it for the shipped build; the tests' build starts it with a short send timeout and a handle on it.
 */

const OUTBOX_KEY = 'outbox';
const FLUSH_ALARM = 'gleaner-outbox';
const MENU_SAVE_SELECTION = 'save-selection';
const MENU_SAVE_PAGE = 'save-page';
const COMMAND_SAVE_PAGE = 'save-page';

export interface WorkerConfig {
  /** A send that has not answered by then counts as unreachable and is retried. */
  readonly sendTimeoutMs: number;
}

/** The instant-save paths, as the menu and the command call them, and the outbox behind them. */
export interface WorkerHandle {
  handleCommand(command: string, tab: chrome.tabs.Tab | undefined): Promise<Delivery | null>;
  handleMenuClick(info: chrome.contextMenus.OnClickData, tab: chrome.tabs.Tab | undefined): Promise<Delivery | null>;
  readonly outbox: Outbox;
}

export function startWorker(config: WorkerConfig): WorkerHandle {
  const outbox = new Outbox({
    load: async () => (await chrome.storage.local.get(OUTBOX_KEY))[OUTBOX_KEY] as OutboxState | undefined,
    store: (state) => chrome.storage.local.set({ [OUTBOX_KEY]: state }),
    send: async (item) => {
      const settings = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Settings | undefined;
      if (!settings) return { kind: 'not-configured' };
      // Should the browser stop the worker mid-send, this alarm starts it again to send the save once more.
      await chrome.alarms.create(FLUSH_ALARM, { when: Date.now() + config.sendTimeoutMs + 1_000 });
      const fetchWithTimeout: typeof fetch = (input, init) =>
        fetch(input, { ...init, signal: AbortSignal.timeout(config.sendTimeoutMs) });
      // Always `append: true` (the person chose to quote this): the Idempotency-Key alone keeps a retry
      // from being applied twice, which needs every send of a save to be the same request.
      return postSave(fetchWithTimeout, settings, { ...item.request, append: true }, item.id);
    },
    now: Date.now,
    random: Math.random,
    newId: () => crypto.randomUUID(),
  });

  /** Sends what is due; a failure inside the extension is shown, not swallowed. */
  const flush = () =>
    outbox
      .flush()
      .then(afterwards)
      .catch((error: unknown) => notify(failureNotification('the waiting saves', error)));

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
    void flush();
  });
  chrome.runtime.onStartup.addListener(() => void flush());
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === FLUSH_ALARM) void flush();
  });
  chrome.contextMenus.onClicked.addListener((info, tab) => void handleMenuClick(info, tab));
  chrome.commands.onCommand.addListener((command, tab) => void handleCommand(command, tab));
  chrome.notifications.onClicked.addListener((id) => {
    if (id.startsWith('attention')) void chrome.runtime.openOptionsPage();
    void chrome.notifications.clear(id);
  });
  chrome.runtime.onMessage.addListener((request: WorkerRequest, _sender, reply) => {
    // The page words the failure itself (failureMessage), as it does a failure to reach the worker.
    answer(request).then(reply, (error: unknown) =>
      reply(workerFailure(error instanceof Error ? error.message : String(error))),
    );
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

  /**
   * An instant save (context menu, keyboard command): no window opens; the badge and notifications
   * answer, also when something inside the extension fails.
   */
  async function saveTab(
    tab: chrome.tabs.Tab,
    source: SaveSource,
    hint: { selectionText?: string; frameId?: number } = {},
  ): Promise<Delivery | null> {
    if (!isSavable(tab.url)) {
      notify({
        id: 'attention-unsavable',
        title: 'Nothing to save here',
        message: 'Gleaner saves web pages (http and https addresses) only.',
      });
      return null;
    }
    const fit = fitUrl(tab.url!);
    if (fit.kind !== 'fits') {
      const popupHint =
        fit.kind === 'without-query' ? ' Open the Gleaner popup to save it without the query string.' : '';
      notify({ id: 'attention-too-long', title: 'Not saved', message: `${tooLongMessage(fit)}${popupHint}` });
      return null;
    }
    try {
      const page = await capturePage(tab, hint);
      if (!page.readable) {
        notify({
          id: 'info-unreadable',
          title: 'Saving the address only',
          message:
            'This browser does not let extensions read this page, so no selection could be read. The address and title are saved.',
        });
      }
      const { delivery, sent } = await outbox.add(page.request, source);
      await afterwards(sent, { flashSaved: delivery.kind === 'saved' });
      return delivery;
    } catch (error) {
      notify(failureNotification(tab.title?.trim() || tab.url!, error));
      return null;
    }
  }

  /**
   * After any outbox operation: notifications for saves that need the person, the badge, and the alarm
   * for the next retry.
   */
  async function afterwards(
    deliveries: Delivery[],
    options: { quietFor?: string; flashSaved?: boolean } = {},
  ): Promise<Delivery[]> {
    for (const delivery of deliveries) {
      const notification = delivery.item.id === options.quietFor ? null : notificationFor(delivery);
      if (notification) notify(notification);
    }
    const state = await outbox.state();
    await showBadge(state, options.flashSaved === true);
    const wake = Outbox.nextWake(state);
    if (wake === null) await chrome.alarms.clear(FLUSH_ALARM);
    else await chrome.alarms.create(FLUSH_ALARM, { when: Math.max(wake, Date.now() + 1_000) });
    return deliveries;
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

  return { handleCommand, handleMenuClick, outbox };
}

function notify({ id, title, message }: NotificationText): void {
  void chrome.notifications.create(id, { type: 'basic', iconUrl: 'icons/icon-128.png', title, message });
}
