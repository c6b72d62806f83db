/**
 * Which Delta protocols Tributary can write to: the legacy versions up to reader 1 / writer 2
 * (append-only tables included), and table features (reader 3 / writer 7) it implements.
 */
import type { Metadata, Protocol } from './log.ts';

const writerFeatures = new Set(['appendOnly']);
const readerFeatures = new Set<string>();

export type WriteSupport = { ok: true } | { ok: false; unsupported: string[]; message: string };

export function writeSupport(protocol: Protocol, metadata: Metadata | null): WriteSupport {
  const unsupported: string[] = [];
  if (protocol.minReaderVersion > 3 || protocol.minReaderVersion === 2)
    unsupported.push(`reader version ${protocol.minReaderVersion}`);
  if (protocol.minWriterVersion > 7 || (protocol.minWriterVersion > 2 && protocol.minWriterVersion < 7))
    unsupported.push(`writer version ${protocol.minWriterVersion}`);
  for (const feature of protocol.readerFeatures ?? []) if (!readerFeatures.has(feature)) unsupported.push(feature);
  for (const feature of protocol.writerFeatures ?? [])
    if (!writerFeatures.has(feature) && !unsupported.includes(feature)) unsupported.push(feature);
  if (metadata?.schemaString.includes('delta.invariants')) unsupported.push('invariants');
  if (unsupported.length === 0) return { ok: true };
  return {
    ok: false,
    unsupported,
    message: `The table's protocol needs ${unsupported.join(', ')}, which Tributary does not implement; nothing was written. Remove the feature or write elsewhere, then redrive the failed deliveries.`,
  };
}
