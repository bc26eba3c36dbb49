import { spawnSync } from 'node:child_process';

/**
 * Whether AWS's CloudFormation linter (Python, `pip install cfn-lint`; preinstalled on these machines,
 * in no Debian release) is on PATH. Missing, its test skips and says so, except under CI=true, where
 * it fails: CI never skips.
 */
export function cfnLintAvailable(): boolean {
  if (spawnSync('cfn-lint', ['--version']).status === 0) return true;
  const message = 'cfn-lint was not found on PATH: install it with `pip install cfn-lint`.';
  if (process.env.CI === 'true') throw new Error(`${message} CI does not skip the cfn-lint test.`);
  console.warn(`Skipping the cfn-lint test. ${message}`);
  return false;
}
