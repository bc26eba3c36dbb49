import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PYTHON, pythonModuleAvailable } from './python';

/** The W3C feed validator's checks on RSS text, restated in feed-validator-rules.py (the validator is neither on npm nor in Debian). */
const RULES = fileURLToPath(new URL('./feed-validator-rules.py', import.meta.url));

export const feedValidatorRulesAvailable = (testName: string) => pythonModuleAvailable('xml.sax', 'python3', testName);

/** The validator's warnings on `xml`; a document that is not well-formed XML throws. */
export function feedValidatorWarnings(xml: string): string[] {
  const run = spawnSync(PYTHON, [RULES], { input: xml, encoding: 'utf8' });
  if (run.status !== 0 || run.stderr !== '') throw new Error(`the feed validator rules failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}
