import { askWorker, deliveryMessage } from './messages';
import type { Delivery, OutboxItem } from './outbox';
import { type CapturedPage, capturePage } from './page-capture';
import { isSavable } from './page-text';
import { SETTINGS_KEY } from './settings';

/** The toolbar popup: the page's title and selection prefilled, a comment, Save, and the waiting saves. */

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = element<HTMLFormElement>('save-form');
const result = element<HTMLParagraphElement>('result');

async function main(): Promise<void> {
  element('open-options').addEventListener(
    'click',
    () => void chrome.runtime.openOptionsPage().then(() => window.close()),
  );
  element('retry-now').addEventListener('click', () => void askWorker({ type: 'retry-now' }).then(showQueue));
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
  fill(page);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save(page);
  });
}

/** The tab the popup was opened over; `?tab=<id>` when the popup is opened as a page (tests, debugging). */
async function targetTab(): Promise<chrome.tabs.Tab | undefined> {
  const requested = Number(new URLSearchParams(location.search).get('tab'));
  if (requested) return chrome.tabs.get(requested);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

function fill(page: CapturedPage): void {
  form.hidden = false;
  element<HTMLInputElement>('title').value = page.request.title ?? '';
  element('page-url').textContent = page.request.url;
  element<HTMLTextAreaElement>('selection').value = page.request.selection ?? '';
  element('unreadable').hidden = page.readable;
  element<HTMLTextAreaElement>('comment').focus();
}

async function save(page: CapturedPage): Promise<void> {
  const button = element<HTMLButtonElement>('save');
  button.disabled = true;
  show('Saving…', '');
  const text = (id: string) => element<HTMLInputElement | HTMLTextAreaElement>(id).value.trim() || null;
  const delivery = await askWorker({
    type: 'save',
    request: { ...page.request, title: text('title'), selection: text('selection'), comment: text('comment') },
  });
  show(deliveryMessage(delivery), tone(delivery));
  // Anything but a refusal of this input is done or in the outbox; a second click would save it twice.
  button.disabled = delivery.kind !== 'dropped';
  await showQueue();
}

function tone(delivery: Delivery): string {
  if (delivery.kind === 'saved') return 'ok';
  return delivery.kind === 'queued' ? 'warn' : 'bad';
}

function show(message: string, toneClass: string): void {
  result.textContent = message;
  result.className = `status ${toneClass}`;
}

async function showQueue(): Promise<void> {
  const state = await askWorker({ type: 'outbox' });
  element('token-refused').hidden = !state.tokenRefused;
  element('queue').hidden = state.items.length === 0;
  element('queue-items').replaceChildren(...state.items.map(queueEntry));
}

function queueEntry(item: OutboxItem): HTMLLIElement {
  const entry = document.createElement('li');
  const what = document.createElement('div');
  what.className = 'what';
  const title = document.createElement('strong');
  title.textContent = item.request.title ?? item.request.url;
  title.title = item.request.url;
  const why = document.createElement('span');
  why.className = 'why';
  why.textContent = item.problem ?? 'Waiting to be sent';
  what.append(title, why);
  const discard = document.createElement('button');
  discard.type = 'button';
  discard.textContent = 'Discard';
  discard.setAttribute('aria-label', `Discard the save of ${title.textContent}`);
  discard.addEventListener('click', () => void askWorker({ type: 'discard', id: item.id }).then(showQueue));
  entry.append(what, discard);
  return entry;
}

void main();
