#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx clause-review` works without a build step.
import { register } from 'tsx/esm/api';

register();
await import('./clause-review.ts');
