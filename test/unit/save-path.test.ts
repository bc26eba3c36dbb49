import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type BookmarkStore, saveBookmark } from '../../functions/core/save/save-bookmark';
import { parseSaveRequest } from '../../functions/core/save/save-request';
import { InMemoryBookmarkStore } from '../support/in-memory-bookmark-store';
import { quietSavePorts } from '../support/save-ports';

/**
 * How often a save crosses from the save core into the bookmark store, the numbers
 * docs/architecture.md states ("The save path, module by module"): each store call is one entry into
 * the store and one return into the core, besides the handler's own call of the core.
 */

function countedStore() {
  const calls: string[] = [];
  const store = new Proxy(new InMemoryBookmarkStore(1000), {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return value.apply(target, args);
      };
    },
  });
  return { store: store as BookmarkStore, calls };
}

async function savedThrough(store: BookmarkStore, userId: string, body: Record<string, unknown>, key: string | null) {
  const parsed = parseSaveRequest(body);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return saveBookmark(quietSavePorts(store), {
    userId,
    request: parsed.request,
    siteIcon: null,
    idempotency: key ? { scope: 'token', key } : null,
  });
}

describe('a save, call by call', () => {
  it('appends to a page saved already in three store calls under a key (core 4, store 3), two without', async () => {
    const { store, calls } = countedStore();
    const userId = randomUUID();
    await savedThrough(store, userId, { url: 'https://example.com/page' }, null);
    calls.splice(0);
    expect((await savedThrough(store, userId, { url: 'https://example.com/page', selection: 'One' }, 'k')).kind).toBe(
      'saved',
    );
    expect(calls).toEqual(['claimKey', 'createBookmark', 'appendToNote']);
    calls.splice(0);
    await savedThrough(store, userId, { url: 'https://example.com/page', selection: 'Two' }, null);
    expect(calls).toEqual(['createBookmark', 'appendToNote']);
  });

  it('saves a new page in two store calls under a key (core 3, store 2), one without', async () => {
    const { store, calls } = countedStore();
    const userId = randomUUID();
    await savedThrough(store, userId, { url: 'https://example.com/new' }, 'new');
    expect(calls).toEqual(['claimKey', 'createBookmark']);
    calls.splice(0);
    await savedThrough(store, userId, { url: 'https://example.com/newer' }, null);
    expect(calls).toEqual(['createBookmark']);
  });
});
