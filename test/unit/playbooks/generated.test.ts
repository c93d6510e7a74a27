import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  currentShippedPlaybooksModule,
  PLAYBOOK_FILES,
  playbookSchemaText,
  shippedPlaybooksModule,
} from '../../../bin/build-playbooks.js';
import { CATEGORY_IDS } from '../../../lambdas/core/analysts/categories.js';
import { SHIPPED_PLAYBOOK_SOURCES } from '../../../lambdas/core/playbooks/defaults.generated.js';
import {
  issueLine,
  PARTIES,
  parsePlaybook,
  playbookJsonSchema,
  shippedPlaybooks,
} from '../../../lambdas/core/playbooks/index.js';

describe('what the playbook format generates', () => {
  it('docs/playbook.schema.json is the schema as the code has it: `npm run build:playbooks` after a change', () => {
    expect(readFileSync(PLAYBOOK_FILES.schema, 'utf8')).toBe(playbookSchemaText());
    const schema = playbookJsonSchema() as {
      properties: Record<
        string,
        { enum?: string[]; items?: { properties: Record<string, { enum?: string[] }> } }
      >;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.properties.party?.enum).toEqual([...PARTIES]);
    expect(schema.properties.positions?.items?.properties.category?.enum).toEqual([...CATEGORY_IDS]);
    expect(schema.required).toEqual(['name', 'title', 'party', 'contractTypes', 'positions']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('the shipped playbooks module carries the files on disk', () => {
    expect(readFileSync(PLAYBOOK_FILES.module, 'utf8')).toBe(currentShippedPlaybooksModule());
    for (const { file, source } of SHIPPED_PLAYBOOK_SOURCES) {
      expect(source).toBe(readFileSync(join(PLAYBOOK_FILES.defaults, file), 'utf8'));
    }
  });

  it('keeps any character a file may hold, as a string literal', () => {
    const files = [{ file: 'x.yaml', source: "a: '`$" + "{x}' # </script>\n\\" }];
    const module = shippedPlaybooksModule(files);
    const value = new Function(
      `${module.replace(/export const (\w+):[^=]+=/, 'var $1 =')}; return SHIPPED_PLAYBOOK_SOURCES;`,
    )();
    expect(value).toEqual(files);
  });
});

describe('the shipped playbooks', () => {
  it('are valid: default for customers of services, supply and licences, and nda', () => {
    const shipped = shippedPlaybooks();
    expect(shipped.map((p) => p.playbook.name)).toEqual(['default', 'nda']);
    const [byDefault, nda] = shipped;
    expect(byDefault?.playbook.party).toBe('customer');
    expect(byDefault?.playbook.contractTypes).toEqual(['services', 'supply', 'licence']);
    expect(nda?.playbook.contractTypes).toEqual(['nda']);
    for (const p of shipped) expect(parsePlaybook(p.canonical).sha256).toBe(p.sha256);
  });

  it('default takes a position on each of the twelve categories, requires a limitation of liability and has a notice period', () => {
    const p = shippedPlaybooks()[0]?.playbook;
    expect(new Set(p?.positions.map((x) => x.category))).toEqual(new Set(CATEGORY_IDS));
    const required = p?.requiredClauses.find((r) => r.topic === 'limitation-of-liability');
    expect(required?.category).toBe('liability');
    expect(required?.language).toMatch(/liability/i);
    const notice = p?.positions.find((x) => x.topic === 'non-renewal-notice');
    expect(notice?.measure).toMatchObject({ unit: 'days', direction: 'at-most' });
    expect(notice?.standard.threshold).toBe(30);
    const cap = p?.positions.find((x) => x.topic === 'limitation-of-liability');
    expect(cap?.measure?.unit).toBe('multiple-of-fees');
    expect(cap?.fallbacks.map((f) => f.threshold)).toEqual([1.5, 1]);
  });

  it('an issue reads as a line with or without the file name', () => {
    const issue = { path: 'positions[0].topic', line: 3, column: 7, message: 'is required' };
    expect(issueLine(issue, 'a.yaml')).toBe('a.yaml:3:7: positions[0].topic: is required');
    expect(issueLine(issue)).toBe('line 3, column 7: positions[0].topic: is required');
    expect(issueLine({ path: '', message: 'too large' }, 'a.yaml')).toBe('a.yaml: too large');
  });
});
