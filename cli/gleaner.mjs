#!/usr/bin/env node
// The `gleaner` admin command: runs cli/main.ts through tsx, so it needs no build step.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import('./main.ts');
