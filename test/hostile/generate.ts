/**
 * Hostile documents, built in memory at run time (nothing large is committed): files that are
 * small on the wire but make a reader inflate, loop or backtrack. Each case says what intake
 * must do with it. Used by `test/integration/hostile-documents.test.ts` (a bounded subset) and
 * by `npm run bench -- --only hostile`, which prints time and peak memory per case.
 *
 *   npx tsx test/hostile/generate.ts <dir>   writes every case to <dir> for a manual look
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, deflateRawSync } from 'node:zlib';

/** One hostile input and the outcome intake must reach. */
export interface HostileCase {
  readonly name: string;
  /** File name, whose extension decides the format. */
  readonly key: string;
  readonly build: () => Uint8Array;
  /** The rejection reason intake must give, or `accepted` for a file it must read in time. */
  readonly expect: 'accepted' | 'too-large-inflated' | 'too-many-pages' | 'too-complex';
  /** Cheap enough to build and run in the integration test. */
  readonly inTests: boolean;
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * `unit` repeated to `bytes`, deflated without ever holding it: one 8 MB slice is deflated
 * once with a sync flush, and the stream is that block over and over, then a final block.
 * Raw deflate for zip entries; with a zlib header for PDF streams (readers of PDF streams do
 * not check the trailing checksum, so it is left at zero).
 */
function deflatedRepeat(unit: string, bytes: number, raw: boolean): Buffer {
  const sliceBytes = 8 << 20;
  const slice = Buffer.alloc(sliceBytes, unit);
  const block = deflateRawSync(slice, { level: constants.Z_BEST_SPEED, finishFlush: constants.Z_SYNC_FLUSH });
  const blocks = Array.from({ length: Math.floor(bytes / sliceBytes) }, () => block);
  const tail = deflateRawSync(slice.subarray(0, bytes % sliceBytes));
  const body = Buffer.concat([...blocks, tail]);
  return raw ? body : Buffer.concat([Buffer.from([0x78, 0x01]), body, Buffer.alloc(4)]);
}

/** A PDF of the given objects (1-based), with a byte-exact cross-reference table. */
function pdf(objects: (string | Buffer)[]): Uint8Array {
  const chunks: Buffer[] = [latin1('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n')];
  let length = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([
      latin1(`${i + 1} 0 obj\n`),
      typeof body === 'string' ? latin1(body) : body,
      latin1('\nendobj\n'),
    ]);
    chunks.push(part);
    length += part.length;
  });
  let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n \n`;
  xref += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  chunks.push(latin1(xref));
  return Uint8Array.from(Buffer.concat(chunks));
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const PAGE =
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>';
const TEXT =
  'BT /F1 11 Tf 72 740 Td (1. Term. This Agreement lasts two years from the Effective Date.) Tj ET';

/** One page object listed `times` times in the page tree. */
function pdfRepeatingOnePage(times: number): Uint8Array {
  const kids = Array.from({ length: times }, () => '4 0 R').join(' ');
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${times} >>`,
    FONT,
    PAGE,
    `<< /Length ${TEXT.length} >>\nstream\n${TEXT}\nendstream`,
  ]);
}

/** One page whose content stream inflates to `bytes` of text-drawing operators. */
function pdfWithHugeStream(bytes: number): Uint8Array {
  const packed = deflatedRepeat(`${TEXT}\n`, bytes, false);
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    FONT,
    PAGE,
    Buffer.concat([
      latin1(`<< /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`),
      packed,
      latin1('\nendstream'),
    ]),
  ]);
}

/** A zip (deflate) of the given entries: name → [deflated data, inflated size]. */
function zip(entries: [string, Buffer, number][]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, packed, size] of entries) {
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(Math.min(size, 0xffffffff), 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(Math.min(size, 0xffffffff), 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const centralBytes = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Uint8Array.from(Buffer.concat([...locals, centralBytes, end]));
}

const DOCX_PARTS: [string, string][] = [
  [
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  ],
  [
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  ],
];

/**
 * A DOCX whose document part inflates to `bytes` of paragraphs; `declared` is the size its
 * zip headers claim (a liar claims little).
 */
function docxInflatingTo(bytes: number, declared = bytes): Uint8Array {
  const head =
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const paragraph = '<w:p><w:r><w:t>1. The Supplier shall deliver on time.</w:t></w:r></w:p>';
  const body = deflatedRepeat(paragraph, bytes, true);
  // Only paragraphs, without the XML declaration and <w:document> around them: readers never
  // get that far, and the paragraphs are what inflates.
  return zip([
    ...DOCX_PARTS.map(([n, t]): [string, Buffer, number] => [n, deflateRawSync(t), t.length]),
    [
      'word/document.xml',
      Buffer.concat([deflateRawSync(head, { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, 0), body]),
      declared,
    ],
  ]);
}

/** `count` numbered clauses of plain text. */
function numberedClauses(count: number): Uint8Array {
  return utf8(
    Array.from(
      { length: count },
      (_, i) => `${i + 1}. The Supplier shall deliver item ${i + 1} on time and in full.`,
    ).join('\n\n'),
  );
}

/** A PDF of `count` real pages, one short clause each. */
function pdfPages(count: number): Uint8Array {
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', FONT];
  const kids: string[] = [];
  for (let i = 0; i < count; i++) {
    const page = 4 + i * 2;
    kids.push(`${page} 0 R`);
    const text = `BT /F1 11 Tf 72 740 Td (${i + 1}. Clause ${i + 1} of the agreement applies.) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${page + 1} 0 R >>`,
      `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${count} >>`;
  return pdf(objects);
}

const MB = 1024 * 1024;

/** Every case, cheapest first. */
export const HOSTILE_CASES: readonly HostileCase[] = [
  {
    name: 'Markdown, 40,000 emphasis markers',
    key: 'emphasis-40k.md',
    build: () => utf8('*a '.repeat(40_000)),
    expect: 'accepted',
    inTests: true,
  },
  {
    name: 'Markdown, 100,000 emphasis markers',
    key: 'emphasis-100k.md',
    build: () => utf8('**a '.repeat(100_000)),
    expect: 'accepted',
    inTests: false,
  },
  {
    name: 'Markdown, 100,000 unclosed links',
    key: 'links-100k.md',
    build: () => utf8('[a]('.repeat(100_000)),
    expect: 'accepted',
    inTests: true,
  },
  {
    name: 'text, 5,000 numbered clauses',
    key: 'clauses-5000.txt',
    build: () => numberedClauses(5_000),
    expect: 'accepted',
    inTests: false,
  },
  {
    name: 'text, 25,000 numbered clauses',
    key: 'clauses-25000.txt',
    build: () => numberedClauses(25_000),
    expect: 'too-complex',
    inTests: false,
  },
  {
    name: 'HTML, 100,000 nested elements',
    key: 'nested.html',
    build: () => utf8(`<html><body>${'<div>'.repeat(100_000)}1. Term. The term is one year.</body></html>`),
    expect: 'accepted',
    inTests: false,
  },
  {
    name: 'PDF repeating one page 20,000 times',
    key: 'repeat-page.pdf',
    build: () => pdfRepeatingOnePage(20_000),
    expect: 'too-many-pages',
    inTests: true,
  },
  {
    name: 'PDF of 2,500 real pages',
    key: 'pages-2500.pdf',
    build: () => pdfPages(2_500),
    expect: 'too-many-pages',
    inTests: false,
  },
  {
    name: 'PDF with a 200 MB content stream',
    key: 'stream-200mb.pdf',
    build: () => pdfWithHugeStream(200 * MB),
    expect: 'too-large-inflated',
    inTests: true,
  },
  {
    name: 'DOCX inflating to 300 MB',
    key: 'inflate-300mb.docx',
    build: () => docxInflatingTo(300 * MB),
    expect: 'too-large-inflated',
    inTests: true,
  },
  {
    name: 'DOCX inflating to 300 MB, claiming 1 KB',
    key: 'inflate-liar.docx',
    build: () => docxInflatingTo(300 * MB, 1024),
    expect: 'too-large-inflated',
    inTests: false,
  },
  {
    name: 'DOCX inflating to 1 GB',
    key: 'inflate-1gb.docx',
    build: () => docxInflatingTo(1024 * MB),
    expect: 'too-large-inflated',
    inTests: false,
  },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'hostile-documents';
  mkdirSync(dir, { recursive: true });
  for (const c of HOSTILE_CASES) {
    const bytes = c.build();
    writeFileSync(join(dir, c.key), bytes);
    console.log(`${c.key}\t${bytes.length} bytes\t${c.expect}`);
  }
}
