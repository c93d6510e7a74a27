import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: where package-lock.json, lambdas/ and the batch worker's Dockerfile live. */
export const PROJECT_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
