/**
 * Offline validation of an Office add-in manifest against Microsoft's manifest schema
 * (test/fixtures/addin-manifest-schema/, whose README says where the files come from), with
 * libxml2 compiled to WebAssembly (xmllint-wasm): nothing leaves the machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

const SCHEMAS = join(import.meta.dirname, '../fixtures/addin-manifest-schema');
const MAIN = 'OfficeAppManifestV1_1.xsd';

/** libxml2's verdict on a manifest: the schema's errors, none when valid. */
export async function schemaErrors(xml: string): Promise<string[]> {
  const files = readdirSync(SCHEMAS)
    .filter((f) => f.endsWith('.xsd'))
    .map((f) => ({ fileName: f, contents: readFileSync(join(SCHEMAS, f), 'utf8') }));
  const r = await validateXML({
    xml: [{ fileName: 'manifest.xml', contents: xml }],
    schema: files.filter((f) => f.fileName === MAIN),
    preload: files.filter((f) => f.fileName !== MAIN),
  });
  return r.errors.map((e) => e.message);
}
