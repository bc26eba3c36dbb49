import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/processes';

/** Every relative link in the repository's Markdown names a file that exists, and a heading in it. */

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

const markdown = new MarkdownIt({ html: true });
// -z: names as they are (git quotes non-ASCII ones otherwise); fixtures are data, not pages.
const pages = execFileSync('git', ['ls-files', '-z', '*.md', ':!:test/fixtures'], {
  cwd: repositoryRoot,
  encoding: 'utf8',
})
  .split('\0')
  .filter(Boolean);

function targets(tokens: Token[], found: string[] = []): string[] {
  for (const token of tokens) {
    const target =
      token.type === 'link_open' ? token.attrGet('href') : token.type === 'image' ? token.attrGet('src') : null;
    if (target) found.push(String(target));
    if (token.children) targets(token.children, found);
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const tokens = markdown.parse(readFileSync(page, 'utf8'), {});
  const found = new Set<string>();
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const slug = (tokens[index + 1]?.content ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return found;
}

function brokenLinks(page: string): string[] {
  const path = join(repositoryRoot, page);
  return targets(markdown.parse(readFileSync(path, 'utf8'), {}))
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .filter((target) => {
      const [file = '', anchor] = target.split('#');
      const linked = file === '' ? path : join(dirname(path), decodeURIComponent(file));
      if (!existsSync(linked)) return true;
      return anchor !== undefined && linked.endsWith('.md') && !anchors(linked).has(decodeURIComponent(anchor));
    })
    .map((target) => `${relative(repositoryRoot, path)} → ${target}`);
}

describe('relative links in the Markdown pages', () => {
  it.each(pages)('%s links only to files and headings that exist', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});

describe('docs/operations.md', () => {
  it('gives the resource budgets the infra tests hold the templates to', () => {
    const harness = readFileSync(join(repositoryRoot, 'test/infra/harness.ts'), 'utf8');
    const root = harness.match(/ROOT_RESOURCE_BUDGET = (\d+)/)?.[1];
    const other = harness.match(/\bRESOURCE_BUDGET = (\d+)/)?.[1];
    const operations = readFileSync(join(repositoryRoot, 'docs/operations.md'), 'utf8').replace(/\s+/g, ' ');
    expect(operations).toContain(`a test fails at ${root} in the service's stack and at ${other} in any other`);
  });
});
