import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../functions/core/token/token';
import { PYTHON } from '../support/python';

/** The secret-scanner script in docs/saving.md, run as printed, finds minted tokens and nothing else. */

const readme = readFileSync(new URL('../../docs/saving.md', import.meta.url), 'utf8');
const script = /```python\n(#!\/usr\/bin\/env python3\n# find-gleaner-tokens[\s\S]*?)```/.exec(readme)?.[1];
const folder = mkdtempSync(join(tmpdir(), 'gleaner-scanner-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the token scanner in docs/saving.md', () => {
  it('prints every well-formed token and no look-alike', () => {
    expect(script).toBeDefined();
    const tokens = Array.from({ length: 20 }, mintToken);
    const broken = tokens[0]!.slice(0, -1) + (tokens[0]!.endsWith('0') ? '1' : '0');
    const text = [
      `export TOKEN=${tokens[0]}`,
      `Authorization: Bearer ${tokens[1]}`,
      `checksum wrong: ${broken}`,
      `too long: ${tokens[2]}x`,
      `gln_${'a'.repeat(36)}`,
      JSON.stringify({ many: tokens.slice(3) }),
    ].join('\n');
    writeFileSync(join(folder, 'scanner.py'), script!);
    writeFileSync(join(folder, 'leak.txt'), text);
    const run = spawnSync(PYTHON, [join(folder, 'scanner.py'), join(folder, 'leak.txt')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const found = run.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(': ')[1]);
    expect(found).toEqual([tokens[0], tokens[1], ...tokens.slice(3)]);
  });
});
