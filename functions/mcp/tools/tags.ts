import { noteSummarySchema, tagListSchema } from '../../core/owner/api';
import * as library from '../../core/owner/library';
import { ADDITIVE, noteId, READ_ONLY, type ToolGroup, tags, tagsText } from '../tool';

/** The tags in use, and adding or removing tags of a note. */
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
};
