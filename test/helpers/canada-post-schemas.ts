// Canada Post's official XSDs (test/official-schemas/canadapost/, as published), checked with
// libxml2 compiled to WebAssembly (xmllint-wasm): what the adapters send and the fake answers.
import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

const XSD_DIR = new URL('../official-schemas/canadapost/', import.meta.url);
const xsd = (fileName: string) => ({ fileName, contents: readFileSync(new URL(fileName, XSD_DIR), 'utf8') });
const COMMON = xsd('common.xsd');
const SCHEMAS = {
  rating: { schema: [xsd('rating.xsd')], preload: [COMMON] },
  shipment: { schema: [xsd('shipment.xsd')], preload: [COMMON] },
  // track.xsd is published in the namespace .../ws/track; track-v2 documents are in .../ws/track-v2.
  track: {
    schema: [
      {
        fileName: 'track.xsd',
        contents: xsd('track.xsd').contents.replaceAll(
          '"http://www.canadapost.ca/ws/track"',
          '"http://www.canadapost.ca/ws/track-v2"',
        ),
      },
    ],
  },
  messages: { schema: [xsd('messages.xsd')] },
};

export type CanadaPostSchema = keyof typeof SCHEMAS;

/** libxml2's complaints about `xml` against one of Canada Post's schemas; none when valid. */
export async function canadaPostSchemaErrors(xml: string, schema: CanadaPostSchema): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'document.xml', contents: xml }],
    ...SCHEMAS[schema],
  });
  return result.errors.map((e) => e.message);
}
