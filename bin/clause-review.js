#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx clause-review` works without a build step.
import { register } from 'tsx/esm/api';

// The project runs on Node.js 22 (.nvmrc, package.json engines); the AWS SDK's releases after
// January 2027 and the test browser package need it. Say so once instead of failing later.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`error: clause-review needs Node.js 22 or newer (.nvmrc); this is ${process.version}`);
  process.exit(1);
}
register();
// `review` runs the pipeline's handlers in this process, and their JSON logs would interleave
// with its progress lines on stdout: it shows their warnings and errors only, unless the
// caller sets POWERTOOLS_LOG_LEVEL (read when the handlers load, so before the import).
if (process.argv[2] === 'review') process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
await import('./clause-review');
