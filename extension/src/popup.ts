import { askWorker } from './messages';
import { type CapturedPage, capturePage } from './page-capture';
import { fitUrl, isSavable, tooLongMessage } from './page-text';
import type { OutboxItem, OutboxState } from './queue';
import type { SaveRequest } from './save-api';
import { SETTINGS_KEY } from './settings';
import { deliveryMessage, failureMessage, lastSaveOf, queueEntryText, type StatusLine, saveStatus } from './wording';

/**
 * The toolbar popup: the page's title and selection prefilled, a comment, Save, and the waiting saves.
 * It follows the stored outbox: a save that got no answer yet is shown as confirmed once it is, while
 * the popup is open or when it is opened again over the page.
 */

const OUTBOX_KEY = 'outbox';
const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = element<HTMLFormElement>('save-form');
const result = element<HTMLParagraphElement>('result');
/** The save the status line tells about: the one this popup made, or the last one made for its page. */
let followed: string | null = null;

async function main(): Promise<void> {
  element('open-options').addEventListener(
    'click',
    () => void chrome.runtime.openOptionsPage().then(() => window.close()),
  );
  element('retry-now').addEventListener('click', () => void retryNow());
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && OUTBOX_KEY in changes) void showQueue();
  });
  await showQueue();

  if (!(await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY]) {
    element('setup').hidden = false;
    return;
  }
  const tab = await targetTab();
  if (!tab || !isSavable(tab.url)) {
    element('unsavable').hidden = false;
    return;
  }
  const page = await capturePage(tab);
  const url = fill(page);
  followed = lastSaveOf(await askWorker({ type: 'outbox' }), page.request.url, Date.now());
  await showQueue();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (url) void save({ ...page.request, url });
  });
}

/** The tab the popup was opened over; `?tab=<id>` when the popup is opened as a page (tests, debugging). */
async function targetTab(): Promise<chrome.tabs.Tab | undefined> {
  const requested = Number(new URLSearchParams(location.search).get('tab'));
  if (requested) return chrome.tabs.get(requested);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

/**
 * Fills the form; the address to save, or null when it is too long even without its query string.
 * A long address is shown on one clipped line, so Save stays in view.
 */
function fill(page: CapturedPage): string | null {
  form.hidden = false;
  element<HTMLInputElement>('title').value = page.request.title ?? '';
  element<HTMLTextAreaElement>('selection').value = page.request.selection ?? '';
  element('unreadable').hidden = page.readable;
  element<HTMLTextAreaElement>('comment').focus();
  const fit = fitUrl(page.request.url);
  const url = fit.kind === 'fits' ? page.request.url : fit.kind === 'without-query' ? fit.url : null;
  const shown = element('page-url');
  shown.textContent = url ?? page.request.url;
  shown.title = shown.textContent;
  if (fit.kind !== 'fits') {
    const warning = element('url-too-long');
    warning.hidden = false;
    warning.textContent = tooLongMessage(fit);
    warning.className = `status ${url ? 'warn' : 'bad'}`;
    element('save').textContent = 'Save without the query string';
    element<HTMLButtonElement>('save').disabled = url === null;
  }
  return url;
}

async function save(request: SaveRequest): Promise<void> {
  const button = element<HTMLButtonElement>('save');
  button.disabled = true;
  followed = null;
  show({ text: 'Saving…', tone: '' });
  const text = (id: string) => element<HTMLInputElement | HTMLTextAreaElement>(id).value.trim() || null;
  try {
    const delivery = await askWorker({
      type: 'save',
      request: { ...request, title: text('title'), selection: text('selection'), comment: text('comment') },
    });
    followed = delivery.item.id;
    show({ text: deliveryMessage(delivery), tone: tone(delivery.kind) });
    // Anything but a refusal of this input is done or in the outbox; a second click would save it twice.
    button.disabled = delivery.kind !== 'dropped';
  } catch (error) {
    // Nothing was kept: say why, and let the person try again.
    show({ text: `Not saved: ${failureMessage(error)}`, tone: 'bad' });
    button.disabled = false;
  }
  await showQueue();
}

async function retryNow(): Promise<void> {
  try {
    await askWorker({ type: 'retry-now' });
  } catch (error) {
    show({ text: `Retry failed: ${failureMessage(error)}`, tone: 'bad' });
  }
  await showQueue();
}

function tone(kind: string): StatusLine['tone'] {
  if (kind === 'saved') return 'ok';
  return kind === 'queued' ? 'warn' : 'bad';
}

function show({ text, tone }: StatusLine): void {
  result.textContent = text;
  result.className = `status ${tone}`;
}

/** The waiting saves and the followed save's line, from the outbox as stored now. */
async function showQueue(): Promise<void> {
  let state: OutboxState;
  try {
    state = await askWorker({ type: 'outbox' });
  } catch (error) {
    show({ text: `The waiting saves cannot be read: ${failureMessage(error)}`, tone: 'bad' });
    return;
  }
  const status = followed ? saveStatus(state, followed) : null;
  if (status) show(status);
  element('token-refused').hidden = !state.tokenRefused;
  element('queue').hidden = state.items.length === 0;
  element('queue-items').replaceChildren(...state.items.map((item) => queueEntry(state, item)));
}

function queueEntry(state: OutboxState, item: OutboxItem): HTMLLIElement {
  const entry = document.createElement('li');
  const what = document.createElement('div');
  what.className = 'what';
  const title = document.createElement('strong');
  title.textContent = item.request.title ?? item.request.url;
  title.title = item.request.url;
  const why = document.createElement('span');
  why.className = 'why';
  why.textContent = queueEntryText(state, item, Date.now());
  what.append(title, why);
  entry.append(what);
  // A save on its way cannot be taken back: the server may be storing it now.
  if (!item.sendingSince) {
    const discard = document.createElement('button');
    discard.type = 'button';
    discard.textContent = 'Discard';
    discard.setAttribute('aria-label', `Discard the save of ${title.textContent}`);
    discard.addEventListener(
      'click',
      () =>
        void askWorker({ type: 'discard', id: item.id }).then(showQueue, (error: unknown) =>
          show({ text: `Not discarded: ${failureMessage(error)}`, tone: 'bad' }),
        ),
    );
    entry.append(discard);
  }
  return entry;
}

void main();
