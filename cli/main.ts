// The process behind `cli/gleaner.mjs`: the command line, the real streams and environment, the exit status.
import { runGleaner } from './program';

runGleaner(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) =>
  process.exit(code),
);
