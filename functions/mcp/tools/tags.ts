import * as z from 'zod/mini';
import { noteSummarySchema, tagListSchema } from '../../core/owner/api';
import * as library from '../../core/owner/library';
import { ADDITIVE, noteId, READ_ONLY, stateText, type ToolGroup, ToolRefusal, tags, tagsText } from '../tool';

/** The tags in use, adding or removing tags of a note, and its reading state. */
export const tagTools: ToolGroup = (tool, { ports, principal }) => {
  const { owner } = ports;
  tool(
    'list_tags',
    {
      title: 'List tags',
      description: 'Every tag in use, with how many notes carry it.',
      input: {},
      output: tagListSchema,
      annotations: READ_ONLY,
    },
    async () => {
      const list = await library.listTags(owner, principal);
      return {
        data: list,
        text: list.tags.map(({ name, count }) => `#${name} (${count})`).join('\n') || 'No tags yet.',
      };
    },
  );

  const tagChange =
    (mode: 'add' | 'remove') =>
    async ({ note_id, tags: changed }: { note_id: string; tags: string[] }) => {
      const note = await library.changeNoteTags(owner, principal, note_id, { [mode]: changed });
      const summary = noteSummarySchema.parse(note);
      return { data: summary, text: `Tags of “${note.title}” now: ${tagsText(note.tags)}` };
    };
  tool(
    'add_tags',
    {
      title: 'Add tags to a note',
      description:
        'Adds tags to a note (tags it has already stay as they are). A tag is letters, digits, _ and -, without #.',
      input: { note_id: noteId, tags },
      output: noteSummarySchema,
      annotations: ADDITIVE,
    },
    tagChange('add'),
  );
  tool(
    'remove_tags',
    {
      title: 'Remove tags from a note',
      description:
        'Removes tags from a note; the note stays. A feed that shows notes by a removed tag no longer shows it.',
      input: { note_id: noteId, tags },
      output: noteSummarySchema,
      annotations: { ...ADDITIVE, destructiveHint: true },
    },
    tagChange('remove'),
  );

  tool(
    'set_reading_state',
    {
      title: 'Archive or star a note',
      description:
        'Archives a note (`archived: true`: done reading, it leaves the inbox) or moves it back to the inbox (`archived: false`), and stars or unstars it (`starred`). A state not given stays as it is.',
      input: { note_id: noteId, archived: z.optional(z.boolean()), starred: z.optional(z.boolean()) },
      output: noteSummarySchema,
      annotations: ADDITIVE,
    },
    async ({ note_id, archived, starred }) => {
      if (archived === undefined && starred === undefined)
        throw new ToolRefusal('Give `archived`, `starred` or both: nothing to change.');
      const note = await library.editNote(owner, principal, note_id, {
        ...(archived === undefined ? {} : { archived }),
        ...(starred === undefined ? {} : { starred }),
      });
      const summary = noteSummarySchema.parse(note);
      return { data: summary, text: `“${note.title}” is now ${stateText(summary)}.` };
    },
  );
};
