import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import type { Principal } from '../../functions/core/identity/principal';
import type { Note } from '../../functions/core/model';
import {
  ConflictError,
  editNote,
  type LibraryStore,
  NotFoundError,
  type OwnerPorts,
  retag,
} from '../../functions/core/owner/library';
import { type BookmarkStore, saveBookmark } from '../../functions/core/save/save-bookmark';
import { parseSaveRequest } from '../../functions/core/save/save-request';
import { newUser } from '../../functions/core/workspace/accounts';
import { createTestStores } from '../support/dynamo';
import { InMemoryBookmarkStore } from '../support/in-memory-bookmark-store';

/**
 * Issue 31: the in-memory store the save core's unit tests run over must not drift from the DynamoDB
 * store. fast-check's model-based testing (fc.commands) runs the same random sequences of saves
 * (new pages and appends, with hashtags), edits, retags (rename and merge) and deletes against both,
 * through the use cases, with a plain model of what each user's notes carry: every command's answer
 * and every note as read afterwards (title, body, tags, last highlight, version) must be the same in
 * both stores and agree with the model. A second user's note sits beside the first's throughout and
 * must come out as it went in.
 */

const URLS = [
  'https://example.com/a',
  'https://example.com/b?x=1',
  'https://EXAMPLE.com/b?x=1#part',
  'https://x.test/',
];
const TAGS = ['aws', 'cloud', 'queues'];

/** One store under test: its use cases for one user, on a shared clock. */
interface System {
  readonly name: string;
  readonly store: BookmarkStore & LibraryStore;
  readonly userId: string;
}

/** What the model knows of the user's notes: per normalised page, its tags (as a set). */
interface Model {
  readonly pages: Map<number, Set<string>>;
}

/** The page a URL saves to (two of the URLs normalise to one page). */
const page = (url: number) => (url === 2 ? 1 : url);

let clock = Date.UTC(2026, 10, 28);
const now = () => new Date(clock);
const tick = () => {
  clock += 1000;
};

function ports(system: System) {
  const save = {
    store: system.store,
    enrichment: { publish: async () => {} },
    newId: randomUUID,
    now,
    logger: { warn() {} },
  };
  const owner = {
    notes: system.store,
    feeds: { listFeeds: async () => [], replaceFeed: async () => true },
    links: { outgoing: async () => [], backlinks: async () => [] },
    articles: { getContent: async () => null, deleteArticle: async () => {} },
    now,
    newId: randomUUID,
  } as unknown as OwnerPorts;
  return { save, owner };
}

const principal = (system: System) => ({ userId: system.userId }) as Principal;

/** The user's notes as read: what an owner sees of each, by the page it is of. */
async function notesOf(system: System): Promise<Record<string, unknown>> {
  const found = await system.store.listNotes(system.userId, {}, { limit: 100 });
  const byUrl = Object.fromEntries(
    found.items.map((note: Note) => [
      note.url,
      { title: note.title, body: note.body, tags: note.tags, lastHighlight: note.lastHighlight, version: note.version },
    ]),
  );
  const counts = Object.fromEntries([...(await system.store.tagCounts(system.userId))].sort());
  return { notes: byUrl, counts };
}

/** Runs `action` on both systems: their answers (or refusals, by kind) must be the same; the answer. */
async function both<T>(real: System[], action: (system: System) => Promise<T>): Promise<T | string> {
  const answers = await Promise.all(
    real.map((system) =>
      action(system).catch((error: unknown) => {
        if (error instanceof NotFoundError || error instanceof ConflictError) return error.constructor.name;
        throw error;
      }),
    ),
  );
  expect(answers[1], `${real[1]!.name} answered otherwise than ${real[0]!.name}`).toEqual(answers[0]);
  const [memory, dynamo] = await Promise.all(real.map(notesOf));
  expect(dynamo, 'the notes as read').toEqual(memory);
  tick();
  return answers[0]!;
}

class Save implements fc.AsyncCommand<Model, System[]> {
  constructor(
    readonly url: number,
    readonly selection: string | null,
    readonly comment: string | null,
  ) {}
  check = () => true;
  async run(model: Model, real: System[]) {
    const parsed = parseSaveRequest({ url: URLS[this.url], selection: this.selection, comment: this.comment });
    if (!parsed.ok) throw new Error('a generated save is always valid');
    const answer = await both(real, async (system) => {
      const outcome = await saveBookmark(ports(system).save, {
        userId: system.userId,
        request: parsed.request,
        siteIcon: null,
        idempotency: null,
      });
      return outcome.kind === 'saved'
        ? { kind: outcome.kind, isNew: outcome.isNewBookmark, appended: outcome.selectionAppended }
        : { kind: outcome.kind };
    });
    const known = model.pages.get(page(this.url));
    expect(answer).toMatchObject({ kind: 'saved', isNew: known === undefined });
    const hashtags = (this.comment?.match(/#(\w+)/g) ?? []).map((tag) => tag.slice(1));
    model.pages.set(page(this.url), new Set([...(known ?? []), ...hashtags]));
  }
  toString = () => `save(${this.url}, ${JSON.stringify(this.selection)}, ${JSON.stringify(this.comment)})`;
}

class Edit implements fc.AsyncCommand<Model, System[]> {
  constructor(
    readonly url: number,
    readonly title: string,
    readonly tags: string[],
  ) {}
  check = () => true;
  async run(model: Model, real: System[]) {
    const answer = await both(real, async (system) => {
      const note = (await system.store.listNotes(system.userId, {}, { limit: 100 })).items.find(
        (found) => found.url !== null && found.url.replace('EXAMPLE', 'example').split('#')[0] === URLS[page(this.url)],
      );
      if (!note) return 'none';
      const edited = await editNote(ports(system).owner, principal(system), note.id, {
        title: this.title,
        tags: this.tags,
      });
      return { title: edited.title, tags: edited.tags };
    });
    if (!model.pages.has(page(this.url))) expect(answer).toBe('none');
    else {
      expect(answer).toEqual({ title: this.title, tags: this.tags });
      model.pages.set(page(this.url), new Set(this.tags));
    }
  }
  toString = () => `edit(${this.url}, ${this.title}, [${this.tags}])`;
}

class Retag implements fc.AsyncCommand<Model, System[]> {
  constructor(
    readonly from: string,
    readonly to: string,
    readonly mode: 'rename' | 'merge',
  ) {}
  check = () => true;
  async run(model: Model, real: System[]) {
    const answer = await both(real, (system) =>
      retag(ports(system).owner, principal(system), this.from, this.to, this.mode),
    );
    const carrying = [...model.pages.values()].filter((tags) => tags.has(this.from));
    const targetInUse = [...model.pages.values()].some((tags) => tags.has(this.to));
    if (carrying.length === 0) expect(answer).toBe('NotFoundError');
    else if (this.from === this.to) expect(answer).toEqual({ tag: this.to, notes_changed: 0 });
    else if (this.mode === 'rename' && targetInUse) expect(answer).toBe('ConflictError');
    else {
      expect(answer).toEqual({ tag: this.to, notes_changed: carrying.length });
      for (const tags of carrying) {
        tags.delete(this.from);
        tags.add(this.to);
      }
    }
  }
  toString = () => `retag(${this.from} → ${this.to}, ${this.mode})`;
}

class Delete implements fc.AsyncCommand<Model, System[]> {
  constructor(readonly url: number) {}
  check = () => true;
  async run(model: Model, real: System[]) {
    const answer = await both(real, async (system) => {
      const note = (await system.store.listNotes(system.userId, {}, { limit: 100 })).items.find(
        (found) => found.url !== null && found.url.replace('EXAMPLE', 'example').split('#')[0] === URLS[page(this.url)],
      );
      return note ? (await system.store.deleteNote(note.id))?.title : 'none';
    });
    expect(answer === 'none').toBe(!model.pages.has(page(this.url)));
    model.pages.delete(page(this.url));
  }
  toString = () => `delete(${this.url})`;
}

const url = fc.integer({ min: 0, max: URLS.length - 1 });
const tag = fc.constantFrom(...TAGS);
const commands = [
  fc
    .tuple(
      url,
      fc.option(fc.constantFrom('A quoted line', 'Another\nline', 'A quoted line ')),
      fc.option(fc.constantFrom('#aws', 'why #cloud #queues', 'plain words')),
    )
    .map(([u, selection, comment]) => new Save(u, selection, comment)),
  fc
    .tuple(url, fc.constantFrom('Edited', 'Another title'), fc.uniqueArray(tag, { maxLength: 3 }))
    .map(([u, title, tags]) => new Edit(u, title, tags)),
  fc
    .tuple(tag, tag, fc.constantFrom('rename' as const, 'merge' as const))
    .map(([from, to, mode]) => new Retag(from, to, mode)),
  url.map((u) => new Delete(u)),
];

let stores: Awaited<ReturnType<typeof createTestStores>>;
beforeAll(async () => {
  stores = await createTestStores();
});
afterAll(() => stores?.table.client.destroy());

/** A new user in the table and in a fresh in-memory store, and another user's note beside each. */
async function systems(): Promise<{ real: System[]; others: System[] }> {
  const memory = new InMemoryBookmarkStore(1000);
  const real: System[] = [];
  const others: System[] = [];
  for (const [name, store] of [
    ['in-memory store', memory],
    ['DynamoDB store', stores.bookmarks as DynamoBookmarkStore],
  ] as const) {
    const [userId, otherId] = [randomUUID(), randomUUID()];
    for (const id of [userId, otherId])
      if (store !== memory) await stores.accounts.createUser(newUser({ id, name: 'Model', now: now() }));
    real.push({ name, store, userId });
    const other = { name, store, userId: otherId };
    const parsed = parseSaveRequest({ url: URLS[0], selection: 'Theirs', comment: '#aws' });
    if (parsed.ok)
      await saveBookmark(ports(other).save, {
        userId: otherId,
        request: parsed.request,
        siteIcon: null,
        idempotency: null,
      });
    others.push(other);
  }
  return { real, others };
}

describe('the note store, in memory and in DynamoDB Local', () => {
  it('answers every sequence of saves, appends, edits, retags and deletes alike, as the model says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async (sequence) => {
        const { real, others } = await systems();
        const before = await Promise.all(others.map(notesOf));
        await fc.asyncModelRun(() => ({ model: { pages: new Map() }, real }), sequence);
        // The other user's note, in each store, is as it was.
        expect(await Promise.all(others.map(notesOf))).toEqual(before);
      }),
      { numRuns: 25, seed: Number(process.env.MODEL_SEED ?? 31), endOnFailure: true },
    );
  });
});
