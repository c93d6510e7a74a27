/**
 * The Word add-in's manifest.xml (lib/addin-manifest.ts), validated offline against Microsoft's
 * manifest schema (test/fixtures/addin-manifest-schema/, README there) with libxml2 through
 * xmllint-wasm: `office-addin-manifest validate` would send it to an online Microsoft service.
 */
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import {
  ADDIN_REQUIREMENT,
  addinId,
  addinManifest,
  isAddinManifestError,
} from '../../../lib/addin-manifest.js';
import { isValidationError } from '../../../lib/errors.js';
import { schemaErrors } from '../../helpers/addin-schema.js';

const BASE = 'https://d111111abcdef8.cloudfront.net/addin/';

describe('addinManifest', () => {
  it('validates against the manifest schema, naming WordApi 1.4 and only HTTPS URLs', async () => {
    const xml = addinManifest({ base: BASE, deployment: 'clause-review' });
    expect(await schemaErrors(xml)).toEqual([]);
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const set = doc.getElementsByTagName('Set')[0];
    expect([set?.getAttribute('Name'), set?.getAttribute('MinVersion')]).toEqual(['WordApi', '1.4']);
    expect(ADDIN_REQUIREMENT).toEqual({ name: 'WordApi', minVersion: '1.4' });
    const urls = [...xml.matchAll(/DefaultValue="(\w+:[^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(5);
    expect(urls.filter((u) => !u?.startsWith('https://'))).toEqual([]);
    expect(doc.getElementsByTagName('SourceLocation')[0]?.getAttribute('DefaultValue')).toBe(
      `${BASE}taskpane.html`,
    );
    expect(doc.getElementsByTagName('SupportUrl')[0]?.getAttribute('DefaultValue')).toBe(
      'https://d111111abcdef8.cloudfront.net/',
    );
  });

  it('has an id of its deployment: the same whoever writes it, another for another stack', () => {
    expect(addinId('clause-review')).toBe(addinId('clause-review'));
    expect(addinId('clause-review')).not.toBe(addinId('clause-review-dev'));
    expect(addinId('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const xml = addinManifest({ base: BASE, deployment: 'clause-review-dev' });
    expect(xml).toContain(`<Id>${addinId('clause-review-dev')}</Id>`);
    expect(xml).toContain('<DisplayName DefaultValue="clause-review (clause-review-dev)"/>');
  });

  it('is refused by the schema when it breaks it, so the validation bites', async () => {
    const good = addinManifest({ base: BASE, deployment: 'clause-review' });
    const misordered = good
      .replace(/(\s*<Permissions>.*<\/Permissions>)/, '')
      .replace('<Hosts>', '<Permissions>ReadWriteDocument</Permissions>\n  <Hosts>');
    expect((await schemaErrors(misordered)).join('\n')).toMatch(/Permissions.*not expected/);
    expect((await schemaErrors(good.replace('<Version>1.0.0.0<', '<Version>1.0.0.0.0<'))).join('\n')).toMatch(
      /Version/,
    );
  });

  it('refuses a base that Office would not load, or that is not a folder', () => {
    for (const base of ['http://example.com/addin/', 'https://example.com/addin']) {
      const error = (() => {
        try {
          addinManifest({ base, deployment: 'x' });
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      expect(isAddinManifestError(error), base).toBe(true);
      // One of lib/'s validation errors, raised where no construct is at hand.
      expect(isValidationError(error) && [error.id, error.constructPath], base).toEqual([
        'BadAddinBase',
        undefined,
      ]);
    }
    // Loopback over HTTP is written for a local trial.
    expect(addinManifest({ base: 'http://127.0.0.1:4100/addin/', deployment: 'local' })).toContain(
      'http://127.0.0.1:4100/addin/taskpane.html',
    );
  });
});
