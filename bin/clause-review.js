#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx clause-review` works without a build step.
import { register } from 'tsx/esm/api';

register();
// `review` runs the pipeline's handlers in this process, and their JSON logs would interleave
// with its progress lines on stdout: it shows their warnings and errors only, unless the
// caller sets POWERTOOLS_LOG_LEVEL (read when the handlers load, so before the import).
if (process.argv[2] === 'review') process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
await import('./clause-review.ts');
