#!/usr/bin/env node
// The `gleaner` admin command: runs the CLI's esbuild bundle (cli/build.mjs builds it when missing
// or out of date, as after `npm ci` in a fresh clone), so no TypeScript is compiled on each run.
import { pathToFileURL } from 'node:url';
import { cliBundle } from './build.mjs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
await import(pathToFileURL(await cliBundle()).href);
