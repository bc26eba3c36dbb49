import { spawnSync } from 'node:child_process';

/** Debian's system interpreter, for the reference tools that exist only in Python (feedparser, the feed validator's rules). */
export const PYTHON = '/usr/bin/python3';

/**
 * Whether `module` imports under PYTHON. Missing, a test skips and names the Debian package to
 * install, except under CI=true, where it fails: CI never skips.
 */
export function pythonModuleAvailable(module: string, debianPackage: string, testName: string): boolean {
  if (spawnSync(PYTHON, ['-c', `import ${module}`]).status === 0) return true;
  const message = `${module} was not found for ${PYTHON}: install Debian's package (apt-get install -y ${debianPackage}).`;
  if (process.env.CI === 'true') throw new Error(`${message} CI does not skip the ${testName}.`);
  console.warn(`Skipping the ${testName}. ${message}`);
  return false;
}
