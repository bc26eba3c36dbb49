import { cleanSelection } from './page-text';
import type { SaveRequest } from './save-api';

/**
 * Reads what a save needs from a tab: its address and title from the tabs API, its selection and meta
 * description from the page itself through `scripting.executeScript` (allowed by `activeTab` when the
 * person clicked the toolbar button, the context menu or the keyboard command; no host permissions).
 */

export interface CapturedPage {
  readonly request: SaveRequest;
  /** False when the browser does not let extensions read the page (browser pages, the web store, the PDF viewer). */
  readonly readable: boolean;
}

/** The description is truncated to this by the server; the extension sends no more. */
const DESCRIPTION_MAX = 500;

/** Runs inside the page: no closures over extension code. */
function readPage(): { selection: string; description: string | null } {
  const active = document.activeElement;
  // Text selected inside a text field is not part of the document selection.
  const fieldSelection =
    active instanceof HTMLTextAreaElement || (active instanceof HTMLInputElement && active.type === 'text')
      ? active.value.slice(active.selectionStart ?? 0, active.selectionEnd ?? 0)
      : '';
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() || null;
  return {
    selection: fieldSelection || (window.getSelection()?.toString() ?? ''),
    description:
      meta('meta[name="description" i]') ??
      meta('meta[property="og:description" i]') ??
      meta('meta[name="twitter:description" i]'),
  };
}

export async function capturePage(
  tab: chrome.tabs.Tab,
  hint: { selectionText?: string; frameId?: number } = {},
): Promise<CapturedPage> {
  const base = { url: tab.url ?? '', title: tab.title?.trim() || null, comment: null };
  try {
    const frames = await chrome.scripting.executeScript({
      target: { tabId: tab.id!, allFrames: true },
      func: readPage,
    });
    // The selection may be in a frame (the one the context menu was opened in, if known); the description is the top page's.
    const inFrame = frames.find((frame) => frame.frameId === hint.frameId && frame.result?.selection);
    const selected = inFrame ?? frames.find((frame) => frame.result?.selection);
    const top = frames.find((frame) => frame.frameId === 0);
    return {
      readable: true,
      request: {
        ...base,
        selection: cleanSelection(selected?.result?.selection ?? hint.selectionText ?? ''),
        description: top?.result?.description?.slice(0, DESCRIPTION_MAX) ?? null,
      },
    };
  } catch {
    // The context menu still hands over the selected text (without its line breaks) on some such pages.
    return {
      readable: false,
      request: { ...base, selection: cleanSelection(hint.selectionText ?? ''), description: null },
    };
  }
}
