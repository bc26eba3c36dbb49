import { type BadgeFlash, badgeFor } from './badge';
import { type WorkerRequest, workerFailure } from './messages';
import { Outbox } from './outbox';
import { capturePage } from './page-capture';
import { fitUrl, isSavable, tooLongMessage } from './page-text';
import { type Delivery, nextWake, type OutboxState, type SaveSource } from './queue';
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
  /** A send that has not answered by then counts as unanswered and is retried. */
  readonly sendTimeoutMs: number;
  /** The shortest wait before a retry (30 s when not given). */
  readonly retryBaseMs?: number;
}

/** How long ✓ or ✕ stays on the badge after a save left the outbox. */
const FLASH_MS = 4_000;

/** The instant-save paths, as the menu and the command call them, and the outbox behind them. */
export interface WorkerHandle {
  handleCommand(command: string, tab: chrome.tabs.Tab | undefined): Promise<Delivery | null>;
  handleMenuClick(info: chrome.contextMenus.OnClickData, tab: chrome.tabs.Tab | undefined): Promise<Delivery | null>;
  readonly outbox: Outbox;
}

export function startWorker(config: WorkerConfig): WorkerHandle {
  /** A save on its way that has not settled by then was cut off with its worker: the alarm sends it again. */
  const sendingGraceMs = config.sendTimeoutMs + 1_000;
  const outbox = new Outbox(
    {
      load: async () => (await chrome.storage.local.get(OUTBOX_KEY))[OUTBOX_KEY] as OutboxState | undefined,
      store: (state) => chrome.storage.local.set({ [OUTBOX_KEY]: state }),
      send: async (item) => {
        const settings = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Settings | undefined;
        if (!settings) return { kind: 'not-configured' };
        const fetchWithTimeout: typeof fetch = (input, init) =>
          fetch(input, { ...init, signal: AbortSignal.timeout(config.sendTimeoutMs) });
        // Always `append: true` (the person chose to quote this): the Idempotency-Key alone keeps a retry
        // from being applied twice, which needs every send of a save to be the same request.
        return postSave(fetchWithTimeout, settings, { ...item.request, append: true }, item.id);
      },
      now: Date.now,
      random: Math.random,
      newId: () => crypto.randomUUID(),
    },
    { onDelivery: delivered, retryBaseMs: config.retryBaseMs },
  );

  /** Sends what is due; a failure inside the extension is shown, not swallowed. */
  const flush = () => outbox.flush().catch((error: unknown) => notify(failureNotification('the waiting saves', error)));

  /**
   * Every change of the outbox, whoever made it, repaints the badge and sets the alarm for the next
   * send (also while a send is on its way: should the browser stop the worker mid-send, the alarm
   * starts it again to send the save once more).
   */
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && OUTBOX_KEY in changes) void afterChange();
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
      case 'save':
        return outbox.add(request.request, 'popup');
      case 'outbox':
        return outbox.state();
      case 'retry-now':
        return outbox.retryNow();
      case 'discard':
        await outbox.discard(request.id);
        return outbox.state();
      case 'settings-saved':
        return outbox.resume();
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
      return await outbox.add(page.request, source);
    } catch (error) {
      notify(failureNotification(tab.title?.trim() || tab.url!, error));
      return null;
    }
  }

  /**
   * What became of a send: a notification when it needs the person (not for the popup's own save,
   * which the popup shows), and ✓ or ✕ on the badge for a moment.
   */
  function delivered(delivery: Delivery, awaited: boolean): void {
    const notification = awaited && delivery.item.source === 'popup' ? null : notificationFor(delivery);
    if (notification) notify(notification);
    if (delivery.kind === 'saved' || delivery.kind === 'dropped') {
      flash = delivery.kind === 'saved' ? { kind: 'saved' } : { kind: 'refused', reason: delivery.reason };
      clearTimeout(flashEnds);
      flashEnds = setTimeout(() => {
        flash = null;
        void afterChange();
      }, FLASH_MS);
      void afterChange();
    }
  }

  let flash: BadgeFlash = null;
  let flashEnds: ReturnType<typeof setTimeout> | undefined;
  let painted: Promise<void> = Promise.resolve();

  /** The badge and the alarm, from the outbox as stored now; one repaint at a time, so the last change wins. */
  function afterChange(): Promise<void> {
    painted = painted
      .then(async () => {
        const state = await outbox.state();
        const look = badgeFor(state, flash);
        await Promise.all([
          chrome.action.setBadgeText({ text: look.text }),
          chrome.action.setBadgeBackgroundColor({ color: look.color }),
          chrome.action.setTitle({ title: look.title }),
        ]);
        const wake = nextWake(state, sendingGraceMs);
        if (wake === null) await chrome.alarms.clear(FLUSH_ALARM);
        else await chrome.alarms.create(FLUSH_ALARM, { when: Math.max(wake, Date.now() + 1_000) });
      })
      .catch((error: unknown) => notify(failureNotification('the waiting saves', error)));
    return painted;
  }

  return { handleCommand, handleMenuClick, outbox };
}

function notify({ id, title, message }: NotificationText): void {
  void chrome.notifications.create(id, { type: 'basic', iconUrl: 'icons/icon-128.png', title, message });
}
