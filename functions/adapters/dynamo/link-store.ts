import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Backlink,
  type LinkingNote,
  linksOfNote,
  type ResolvedLink,
  resolveLinks,
  titleKey,
  urlKey,
} from '../../core/links/links';
import type { LinkSync } from '../../core/links/projection';
import type { Note } from '../../core/model';
import { BATCH_GET_KEYS, batchGetAll } from './batch-get';
import { conditionalWrite } from './conditional-write';
import { noteLinkItem, noteNameItem, readNoteLink, readNoteName } from './entities/link';
import { readSavedUrl } from './entities/saved-url';
import { keys, LINK_SORT_PREFIX, LOOKUP_INDEX, NAME_SORT_PREFIX } from './keys';
import { queryAll } from './query-all';
import { retryOnConflict, type TransactionAction } from './transactions';

/** Notes that answer to one title: the oldest is the link's target. Read this many to pass deleted ones. */
const NAME_CANDIDATES = 5;

/**
 * Links between a user's notes in the single table. A note's links (and the title it answers to) are
 * items in its partition, indexed by the user and the link's key, so a note's backlinks are one
 * index query per key it answers to, and a link resolves to whatever note answers to its key now:
 * an unresolved link resolves when its target is saved, and a deleted target leaves it unresolved.
 */
export class DynamoLinkStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Makes the stored links of `note` what its text says, in one transaction conditional on the note
   * still being at `note.version`: a change stream replaying an older image, or delivering it late,
   * changes nothing (the newer image's sync wins): `moved-on`. Only the items that differ are
   * written; when none does there is nothing to write (`unchanged`).
   */
  async syncNote(note: LinkingNote & Pick<Note, 'userId' | 'version' | 'created' | 'trashedAt'>): Promise<LinkSync> {
    const TableName = this.tableName;
    // A note in the Trash makes no links and answers to no name, until it is restored.
    const name = note.trashedAt ? null : titleKey(note.title);
    const wanted: Record<string, string>[] = [
      ...(note.trashedAt ? [] : linksOfNote(note)).map((link) => noteLinkItem(note, link)),
      ...(name ? [noteNameItem(note, name)] : []),
    ];
    const existing = new Map((await this.linkItems(note.id)).map((item) => [item.sk as string, item]));
    const puts = wanted.filter((item) => !sameItem(item, existing.get(item.sk!)));
    const kept = new Set(wanted.map((item) => item.sk));
    const deletes = [...existing.values()].filter((item) => !kept.has(item.sk as string));
    if (puts.length === 0 && deletes.length === 0) return 'unchanged';
    const written = await this.transact([
      {
        ConditionCheck: {
          TableName,
          Key: keys.note(note.id),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': note.version },
        },
      },
      ...puts.map((Item) => ({ Put: { TableName, Item } })),
      ...deletes.map(({ pk, sk }) => ({ Delete: { TableName, Key: { pk, sk } } })),
    ]);
    return written ? 'written' : 'moved-on';
  }

  /**
   * Deletes the link and name items of a deleted note (its links leave their targets' backlinks, and
   * links to it become unresolved). Only once the note is gone: false, and nothing deleted, while it exists.
   */
  async removeNote(noteId: string): Promise<boolean> {
    const TableName = this.tableName;
    const existing = await this.linkItems(noteId);
    if (existing.length === 0) return true;
    return this.transact([
      { ConditionCheck: { TableName, Key: keys.note(noteId), ConditionExpression: 'attribute_not_exists(pk)' } },
      ...existing.map(({ pk, sk }) => ({ Delete: { TableName, Key: { pk, sk } } })),
    ]);
  }

  /**
   * The links `note` makes as its text reads now (so a page shows an edit's links at once), each with
   * the user's note it resolves to now (null: waiting for its target).
   */
  async outgoing(note: LinkingNote & Pick<Note, 'userId'>): Promise<ResolvedLink[]> {
    const links = linksOfNote(note);
    const answering = new Map<string, { id: string; title: string }>();
    await Promise.all(
      links.map(async ({ key }) => {
        const target = await this.noteAnswering(note.userId, key);
        if (target && target.id !== note.id) answering.set(key, target);
      }),
    );
    return resolveLinks(links, answering);
  }

  /** The notes of the user that link to `note` (by its title, when it is the one that title names, or its URL). */
  async backlinks(userId: string, note: Pick<Note, 'id' | 'title' | 'url'>): Promise<Backlink[]> {
    const title = titleKey(note.title);
    const url = note.url ? urlKey(note.url) : null;
    const titleIsOurs = title ? (await this.noteAnswering(userId, title))?.id === note.id : false;
    const answered = [...(titleIsOurs && title ? [title] : []), ...(url ? [url] : [])];
    const links = (
      await Promise.all(
        answered.map((key) =>
          queryAll(this.doc, {
            TableName: this.tableName,
            IndexName: LOOKUP_INDEX,
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.linksToIndex(userId, key).gsi1pk },
          }),
        ),
      )
    )
      .flat()
      .map(readNoteLink)
      .filter((link) => link.sourceNoteId !== note.id);
    const sources = await this.existingNotes(
      userId,
      links.map((link) => link.sourceNoteId),
    );
    const seen = new Set<string>();
    return links.flatMap((link) => {
      const source = sources.get(link.sourceNoteId);
      if (!source || seen.has(source.id)) return [];
      seen.add(source.id);
      return [{ note: source, context: link.context }];
    });
  }

  /** The user's note a key names now: the saved page's note for a URL, the oldest note of a title. */
  private async noteAnswering(userId: string, key: string): Promise<{ id: string; title: string } | null> {
    let candidates: string[];
    if (key.startsWith('url:')) {
      const marker = await batchGetAll(this.doc, this.tableName, [keys.savedUrl(userId, key.slice('url:'.length))]);
      candidates = marker.map((item) => readSavedUrl(item).noteId);
    } else {
      const { Items = [] } = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: LOOKUP_INDEX,
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.namesIndex(userId, key).gsi1pk },
          Limit: NAME_CANDIDATES,
        }),
      );
      candidates = Items.map(readNoteName);
    }
    const notes = await this.existingNotes(userId, candidates);
    // A name the stream has not yet dropped (the note was renamed or deleted) names nothing.
    const first = candidates.find(
      (id) => notes.has(id) && (key.startsWith('url:') || titleKey(notes.get(id)!.title) === key),
    );
    return first ? notes.get(first)! : null;
  }

  /** Those of the notes that exist, are the user's and are not in the Trash: id and title. */
  private async existingNotes(
    userId: string,
    noteIds: readonly string[],
  ): Promise<Map<string, { id: string; title: string }>> {
    // Only what a link shows, and a much-linked note's sources a batch of keys each at once.
    const ids = [...new Set(noteIds)];
    const batches = Array.from({ length: Math.ceil(ids.length / BATCH_GET_KEYS) }, (_, i) =>
      ids.slice(i * BATCH_GET_KEYS, (i + 1) * BATCH_GET_KEYS),
    );
    const items = (
      await Promise.all(
        batches.map((batch) =>
          batchGetAll(this.doc, this.tableName, batch.map(keys.note), {
            attributes: ['id', 'userId', 'title', 'trashedAt'],
          }),
        ),
      )
    ).flat();
    return new Map(
      items
        // A note in the Trash is no link's target or source, from the moment it is deleted.
        .filter((item) => item.userId === userId && !item.trashedAt)
        .map((item) => [item.id as string, { id: item.id as string, title: item.title as string }]),
    );
  }

  /** Writes `actions` in one transaction; false when its condition (the first action) did not hold. */
  private async transact(actions: TransactionAction[]): Promise<boolean> {
    const outcome = await retryOnConflict(() =>
      conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions }))),
    );
    return outcome.written;
  }

  /** The link and name items of a note, as stored. */
  private async linkItems(noteId: string): Promise<Record<string, unknown>[]> {
    const [links, names] = await Promise.all([
      this.queryPartition(noteId, LINK_SORT_PREFIX),
      this.queryPartition(noteId, NAME_SORT_PREFIX),
    ]);
    return [...links, ...names];
  }

  private queryPartition(noteId: string, prefix: string): Promise<Record<string, unknown>[]> {
    return queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.note(noteId).pk, ':prefix': prefix },
      ConsistentRead: true,
    });
  }
}

/** Whether the stored item already holds exactly what `wanted` would write. */
function sameItem(wanted: Record<string, string>, stored: Record<string, unknown> | undefined): boolean {
  return (
    stored !== undefined &&
    Object.keys(stored).length === Object.keys(wanted).length &&
    Object.entries(wanted).every(([name, value]) => stored[name] === value)
  );
}
