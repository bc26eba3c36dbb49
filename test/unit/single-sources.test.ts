import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { LOOKUP_INDEX, TTL_ATTRIBUTE } from '../../functions/adapters/dynamo/keys';
import { decodeHtml, extractPageMetadata } from '../../functions/core/enrich/html-metadata';
import { DESCRIPTION_MAX_LENGTH } from '../../functions/core/save/note-body';
import { parseSaveRequest } from '../../functions/core/save/save-request';
import { tableDefinition } from '../../functions/platform/table-definition';
import { DataTable } from '../../lib/data';
import { repositoryRoot } from '../support/processes';

/** Names and limits written once: a second copy would drift from the first without any test noticing. */

const ADAPTERS = join(repositoryRoot, 'functions/adapters/dynamo');
const adapterSources = readdirSync(ADAPTERS)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(ADAPTERS, file), 'utf8') }));

describe('the table definition is the one source of its names', () => {
  it('gives the deployed table the lookup index and the TTL attribute the stores use', () => {
    const stack = new Stack();
    new DataTable(stack, 'Data');
    const [table] = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::Table'));
    expect(table?.Properties.GlobalSecondaryIndexes.map((index: { IndexName: string }) => index.IndexName)).toEqual([
      LOOKUP_INDEX,
    ]);
    expect(table?.Properties.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
  });

  it.each(adapterSources)('$file names neither itself', ({ text }) => {
    expect(text).not.toContain(`'${tableDefinition.globalSecondaryIndexes[0].indexName}'`);
    // The TTL attribute appears in expressions only through #ttl.
    expect(text).not.toMatch(new RegExp(`['\\s(]${tableDefinition.timeToLiveAttribute}\\s*(=|<|>|,)`));
  });
});

describe('the description cap', () => {
  it('is the note body rule the save request and the scraper both apply', async () => {
    const long = 'word '.repeat(200);
    const parsed = parseSaveRequest({ url: 'https://example.com/', description: long });
    expect(parsed.ok && parsed.request.description?.length).toBe(DESCRIPTION_MAX_LENGTH);
    const page = Buffer.from(`<html><head><meta name="description" content="${long}"></head></html>`);
    expect((await extractPageMetadata(decodeHtml(page, 'text/html'), 'https://example.com/')).description?.length).toBe(
      DESCRIPTION_MAX_LENGTH,
    );
    for (const file of ['functions/core/save/save-request.ts', 'functions/core/enrich/html-metadata.ts']) {
      expect(readFileSync(join(repositoryRoot, file), 'utf8'), file).not.toMatch(/\b500\b/);
    }
  });
});
