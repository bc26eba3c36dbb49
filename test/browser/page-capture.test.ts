import { afterEach, describe, expect, it } from 'vitest';
import { capturePage } from '../../extension/src/page-capture';

/**
 * Reading a page, with `chrome.scripting` answering as the browser does. (Compiled with the
 * extension's browser types, beside the Chromium tests; needs no browser.)
 */

type Frame = { frameId: number; result: { selection: string; description: string | null } };

function fakeScripting(executeScript: () => Promise<Frame[]>): void {
  (globalThis as unknown as { chrome: unknown }).chrome = { scripting: { executeScript } };
}

afterEach(() => {
  delete (globalThis as { chrome?: unknown }).chrome;
});

const tab = { id: 7, url: 'https://example.com/paper.pdf', title: ' A paper ' } as chrome.tabs.Tab;

describe('capturePage', () => {
  it('saves the address and title of a page the browser will not let it read', async () => {
    // What Chromium answers for its PDF viewer, the web store and its own pages.
    fakeScripting(() =>
      Promise.reject(
        new Error(
          'Cannot access contents of the page. Extension manifest must request permission to access the respective host.',
        ),
      ),
    );
    expect(await capturePage(tab)).toEqual({
      readable: false,
      request: {
        url: 'https://example.com/paper.pdf',
        title: 'A paper',
        selection: null,
        comment: null,
        description: null,
      },
    });
  });

  it('keeps the selected text the context menu hands over when the page itself cannot be read', async () => {
    fakeScripting(() => Promise.reject(new Error('Cannot access a chrome-extension:// URL of different extension')));
    expect(await capturePage(tab, { selectionText: 'the abstract' })).toMatchObject({
      readable: false,
      request: { selection: 'the abstract' },
    });
  });

  it('takes the selection from the frame it is in and the description from the top page', async () => {
    fakeScripting(async () => [
      { frameId: 0, result: { selection: '', description: 'd'.repeat(600) } },
      { frameId: 3, result: { selection: 'in a frame\r\nsecond line ', description: 'frame description' } },
    ]);
    expect(await capturePage(tab)).toEqual({
      readable: true,
      request: {
        url: tab.url,
        title: 'A paper',
        selection: 'in a frame\nsecond line',
        comment: null,
        description: 'd'.repeat(500),
      },
    });
  });
});
