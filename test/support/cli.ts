import { runGleaner } from '../../cli/program';

/**
 * Runs one `gleaner` command line inside the test's process, as `cli/gleaner.mjs` runs it in its own
 * (same parsing, commands and exit statuses), without the seconds a new process takes to load the
 * CLI. `gleaner` in processes.ts runs the real launcher, for what only a process shows.
 */
export async function gleanerInProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runGleaner(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...process.env, ...env },
  });
  return { code, stdout, stderr };
}
