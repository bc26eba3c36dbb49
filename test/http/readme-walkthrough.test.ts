import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../local/dynamodb-local';
import { repositoryRoot, startService, waitFor } from '../support/processes';

/**
 * The README's "A walk through with curl", followed as a newcomer does: after `npm start`, paste the
 * banner's lines for the CLI and its curl command into a shell in another folder, then each command
 * block as written. Every `# → …` comment
 * and the JSON answer shown must be what the commands print.
 */

const README_BASE_URL = 'http://127.0.0.1:3000';
const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-readme-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Block {
  readonly language: string;
  readonly text: string;
}

function walkThroughBlocks(): Block[] {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const section = /^## A walk through with curl\n([\s\S]*?)^## /m.exec(readme)![1]!;
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```/gm)].map(([, language, text]) => ({
    language: language!,
    text: text!,
  }));
}

function bash(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'bash',
      ['-c', script],
      // Another folder than the project's: there `npx gleaner` would ask the registry for a package.
      { cwd: dataDir, env: { ...process.env, ...env } },
      (error, stdout, stderr) => (error ? reject(new Error(`${script}\n→ ${stderr}`)) : resolve(stdout)),
    ),
  );
}

/** The README's JSON with "…" for any value and an example timestamp for any timestamp. */
function expectShape(actual: unknown, shown: unknown): void {
  if (shown === '…') {
    expect(actual).toEqual(expect.any(String));
    return;
  }
  if (typeof shown === 'string' && /^\d{4}-\d\d-\d\dT/.test(shown)) {
    expect(actual).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+\+00:00$/);
    return;
  }
  if (shown !== null && typeof shown === 'object') {
    expect(Object.keys(actual as object).sort()).toEqual(Object.keys(shown).sort());
    for (const [key, value] of Object.entries(shown)) expectShape((actual as Record<string, unknown>)[key], value);
    return;
  }
  expect(actual).toEqual(shown);
}

describe('the README walk-through', () => {
  it('prints what the README shows when followed after the banner', async () => {
    const port = await findFreePort();
    const service = startService({ PORT: String(port), GLEANER_DATA_DIR: dataDir, GLEANER_ENRICHMENT: 'off' });
    try {
      await waitFor(() => service.output().includes('Stop with Ctrl-C'));
      const banner = service.output();
      const exportLine = /^.*?(export GLEANER_DATA_DIR=\S+)/m.exec(banner)![1]!;
      const aliasLine = /^ *(alias gleaner=.+)$/m.exec(banner)![1]!;
      expect(banner).not.toMatch(/^\s*(?:alias gleaner=)?'?npx /m);
      const bannerCurl = /(curl -sS -X POST[\s\S]*?-d '.*')/.exec(banner)![1]!;
      expect(JSON.parse(await bash(bannerCurl, {}))).toMatchObject({ is_new_bookmark: true });

      const env: Record<string, string> = {
        TOKEN: /demo token: +(\S+)/.exec(banner)![1]!,
        FEED: /demo feed: .*\(id (\S+)\)/.exec(banner)![1]!,
        // The shell of a person who did not start the stack from this folder.
        GLEANER_DATA_DIR: '',
      };
      const blocks = walkThroughBlocks();
      expect(blocks.length).toBeGreaterThanOrEqual(5);
      let checked = 0;
      for (const [index, block] of blocks.entries()) {
        if (block.language !== 'sh' || block.text.includes('TOKEN=gln_…')) continue;
        // A pasted alias works in a script once aliases are expanded, as they are in an interactive shell.
        const script = `shopt -s expand_aliases\n${exportLine}\n${aliasLine}\n${block.text.replaceAll(README_BASE_URL, `http://127.0.0.1:${port}`)}`;
        const stdout = await bash(script, env);
        const answerShown = blocks[index + 1]?.language === 'json' ? JSON.parse(blocks[index + 1]!.text) : null;
        if (answerShown) {
          const answer = JSON.parse(stdout) as { note_id: string };
          expectShape(answer, answerShown);
          env.NOTE = answer.note_id;
          checked++;
        }
        for (const [, expected] of block.text.matchAll(/# → (.+)$/gm)) {
          expect(stdout, `${block.text}\nprinted:\n${stdout}`).toContain(expected!.trim());
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(6);
    } finally {
      service.child.kill('SIGINT');
      await service.exited;
    }
  }, 120_000);
});
