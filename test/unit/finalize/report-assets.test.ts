import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  currentReportAssetsModule,
  REPORT_ASSETS,
  reportAssetsModule,
} from '../../../bin/build-report-assets.js';
import { REPORT_CSS, REPORT_SCRIPT } from '../../../lambdas/core/finalize/report-assets.generated.js';

describe('the report page assets', () => {
  it('are inlined as the files on disk say: `npm run build:assets` after editing them', () => {
    expect(readFileSync(REPORT_ASSETS.module, 'utf8')).toBe(currentReportAssetsModule());
    expect(REPORT_CSS).toBe(REPORT_ASSETS.css.map((f) => readFileSync(f, 'utf8')).join(''));
    expect(REPORT_SCRIPT).toBe(readFileSync(REPORT_ASSETS.script, 'utf8').trimEnd());
  });

  it('keep any character a file may hold, as a string literal', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a file may hold `${`; the module must keep it as it is
    const css = 'a::after { content: "\\201C`${x}"; }\n';
    const module = reportAssetsModule(css, "(() => {\n  const s = '</script>';\n})();\n");
    const values = new Function(
      `${module.replace(/export const /g, 'var ')}; return [REPORT_CSS, REPORT_SCRIPT];`,
    )();
    expect(values).toEqual([css, "(() => {\n  const s = '</script>';\n})();"]);
  });
});
