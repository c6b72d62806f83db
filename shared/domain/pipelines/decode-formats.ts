/**
 * The formats a pipeline decodes payloads from: their names alone, apart from the decoders
 * (decoding.ts, and the XML parser behind it), so that a schema naming them does not carry those.
 */
export const decodeFormats = ['json', 'xml', 'form', 'ndjson', 'auto'] as const;
export type DecodeFormat = (typeof decodeFormats)[number];
