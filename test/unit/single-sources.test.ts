import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOOKUP_INDEX, TTL_ATTRIBUTE } from '../../functions/adapters/dynamo/keys';
import { DESCRIPTION_MAX_LENGTH } from '../../functions/core/save/note-body';
import { SAVE_LIMITS } from '../../functions/core/save/save-request';
import { tableDefinition } from '../../functions/platform/table-definition';
import { repositoryRoot } from '../support/processes';

/** Names and limits written once: a second copy would drift from the first without any test noticing. */

const ADAPTERS = join(repositoryRoot, 'functions/adapters/dynamo');
const adapterSources = readdirSync(ADAPTERS)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(ADAPTERS, file), 'utf8') }));

describe('the table definition is the one source of its names', () => {
  it('gives the stores the lookup index and the TTL attribute', () => {
    expect(LOOKUP_INDEX).toBe(tableDefinition.globalSecondaryIndexes[0].indexName);
    expect(TTL_ATTRIBUTE).toBe(tableDefinition.timeToLiveAttribute);
  });

  it.each(adapterSources)('$file names neither itself', ({ text }) => {
    expect(text).not.toContain(`'${tableDefinition.globalSecondaryIndexes[0].indexName}'`);
    // The TTL attribute appears in expressions only through #ttl.
    expect(text).not.toMatch(new RegExp(`['\\s(]${tableDefinition.timeToLiveAttribute}\\s*(=|<|>|,)`));
  });
});

describe('the description cap', () => {
  it('is the note body rule the save request and the scraper both use', () => {
    expect(SAVE_LIMITS.description).toBe(DESCRIPTION_MAX_LENGTH);
    for (const file of ['functions/core/save/save-request.ts', 'functions/core/enrich/html-metadata.ts']) {
      expect(readFileSync(join(repositoryRoot, file), 'utf8'), file).not.toMatch(/\b500\b/);
    }
  });
});
