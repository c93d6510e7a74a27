import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_DEFAULT_ONLY } from '../../../localstack/ground-files.js';
import { PROJECT_ROOT } from '../../../localstack/python-venv.js';
import config from '../../../vitest.config.js';

describe('the files the LocalStack suite leaves to npm test', () => {
  it('are integration files that exist, and npm test runs each of them', () => {
    expect(EMBEDDED_DEFAULT_ONLY.length).toBeGreaterThan(0);
    for (const file of EMBEDDED_DEFAULT_ONLY) {
      expect(file).toMatch(/^test\/integration\/[a-z-]+\.test\.ts$/);
      expect(existsSync(join(PROJECT_ROOT, file)), file).toBe(true);
    }
    // Read without the LocalStack suite's variable: npm test leaves out the deploy rehearsal only.
    const integration = config.test?.projects?.find(
      (p) => typeof p === 'object' && 'test' in p && p.test?.name === 'integration',
    ) as { test?: { exclude?: string[] } } | undefined;
    expect(integration?.test?.exclude).toEqual(['test/integration/deploy-rehearsal.test.ts']);
  });
});
