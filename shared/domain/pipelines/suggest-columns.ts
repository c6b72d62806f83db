import { notFound } from '../errors.ts';
import type { RejectionSample } from '../jobs/model.ts';
import { type Principal, requireTenantVisible } from '../principal.ts';
import { bigIntegerDigits } from './big-integers.ts';
import { timestampOfText } from './compile-query.ts';
import type { DecodeFormat } from './decode-formats.ts';
import { decodeLimits, decodePayload, type PayloadFormat } from './decoding.ts';
import { type ColumnDefinition, columnTypes } from './definition.ts';
import type { SourceReader } from './run-pipeline.ts';
import { suggestionLimits } from './suggestion-limits.ts';

type ColumnType = ColumnDefinition['type'];

export interface SuggestedColumn extends ColumnDefinition {
  /** Sampled rows that hold a value at the path. */
  seen: number;
}

export interface ColumnSuggestion {
  decode: { format: DecodeFormat };
  /** Envelopes read, newest first, and the rows they held (one per NDJSON line). */
  sampled_envelopes: number;
  sampled_rows: number;
  /** How many sampled envelopes each format decoded (`auto` decodes by content type). */
  formats: Partial<Record<PayloadFormat, number>>;
  rows_rejected: number;
  rejection_samples: RejectionSample[];
  columns: SuggestedColumn[];
  /** Paths left out because a definition holds at most 200 columns. */
  more_paths: number;
}

const plainKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const longText = /^[+-]?\d{1,18}$/;
const numberText = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
/** A date-time (not a date alone: that stays text unless a definition says otherwise). */
const dateTimeText = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

function typeOf(value: unknown, textValues: boolean): ColumnType | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'long' : 'double';
  // An integer past 2^53 (its digits kept): a long while it fits one, else text.
  const digits = bigIntegerDigits(value);
  if (digits !== null) return BigInt(digits) >= -(2n ** 63n) && BigInt(digits) < 2n ** 63n ? 'long' : 'string';
  if (typeof value !== 'string') return 'string';
  const text = textValues ? value.trim() : value;
  // What the decoding reads as a timestamp (compile-query.ts), so that a suggestion never rejects its own sample.
  if (dateTimeText.test(text) && timestampOfText(text) !== null) return 'timestamp';
  if (!textValues) return 'string';
  if (text === '') return null;
  if (text === 'true' || text === 'false') return 'boolean';
  if (longText.test(text)) return 'long';
  if (numberText.test(text) && Number.isFinite(Number(text))) return 'double';
  return 'string';
}

/** Two types seen at one path: the same, long widened to double, anything else as string. */
function merge(a: ColumnType | null, b: ColumnType | null): ColumnType | null {
  if (a === null || a === b) return b ?? a;
  if (b === null) return a;
  if ((a === 'long' && b === 'double') || (a === 'double' && b === 'long')) return 'double';
  return 'string';
}

const stepOf = (key: string) => (plainKey.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

/**
 * Leaves of a document: scalars, and arrays as a whole (a column holds them as JSON text). Below
 * 64 levels an object is a leaf too: no definition needs paths deeper than that.
 */
function leaves(
  value: unknown,
  path: string,
  keys: string[],
  visit: (path: string, keys: string[], leaf: unknown) => void,
) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && keys.length < decodeLimits.maxDepth) {
    for (const [key, child] of Object.entries(value)) leaves(child, `${path}${stepOf(key)}`, [...keys, key], visit);
  } else if (path !== '$') visit(path, keys, value);
}

/** A column name from the path's last keys: lowercase letters, digits and _, never dt, unique. */
function nameFor(keys: string[], taken: Set<string>): string {
  const clean = (key: string) =>
    key
      .replace(/^[@#]/, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  const meaningful = keys.map(clean).filter((key) => key !== '' && key !== 'text');
  for (let depth = 1; depth <= meaningful.length; depth++) {
    const candidate = columnName(meaningful.slice(-depth).join('_'));
    if (candidate !== 'dt' && !taken.has(candidate)) return candidate;
  }
  const base = columnName(meaningful.join('_') || 'value').slice(0, 56);
  for (let n = 2; ; n++) {
    const candidate = `${base}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function columnName(name: string): string {
  const started = /^[a-z_]/.test(name) ? name : `c_${name}`;
  return started.slice(0, 63);
}

/**
 * Propose the columns of a definition from a data set's recent payloads (as Auto Loader infers a
 * schema from a sample).
 * Input: a data set the caller sees, a format (`auto` by default), how many envelopes to sample.
 * Output: every path holding a value, with a type that all sampled values fit and a column name.
 *  1. Read the newest files of the latest snapshot, newest first, up to `sample` envelopes (16 files at most).
 *  2. Decode each as a pipeline would; rows that do not decode are counted and sampled.
 *  3. Infer each path's type: JSON's own types (strings in ISO 8601 are timestamps); in XML and form
 *     text, what every value converts to (long, double, boolean, timestamp), else string. Mixed types
 *     widen to double or string. Arrays are one string column (their JSON text).
 */
export async function suggestColumns(
  deps: Pick<SourceReader, 'getDataSet' | 'envelopeFiles'>,
  principal: Principal,
  dataSetId: string,
  input: { format?: DecodeFormat | undefined; sample?: number | undefined },
): Promise<ColumnSuggestion> {
  const dataSet = await deps.getDataSet(dataSetId);
  if (!dataSet) throw notFound('Data set');
  requireTenantVisible(principal, dataSet.tenant_id, 'Data set');
  const format = input.format ?? 'auto';
  const sample = input.sample ?? suggestionLimits.defaultSample;

  const files = (dataSet.storage_location ? await deps.envelopeFiles(dataSet) : [])
    .sort((a, b) => b.modificationTime - a.modificationTime || (a.path < b.path ? 1 : -1))
    .slice(0, suggestionLimits.maxFiles);
  const paths = new Map<string, { keys: string[]; type: ColumnType | null; seen: number }>();
  const suggestion: ColumnSuggestion = {
    decode: { format },
    sampled_envelopes: 0,
    sampled_rows: 0,
    formats: {},
    rows_rejected: 0,
    rejection_samples: [],
    columns: [],
    more_paths: 0,
  };
  for (const file of files) {
    const envelopes = (await file.readEnvelopes()).reverse();
    for (const envelope of envelopes.slice(0, sample - suggestion.sampled_envelopes)) {
      suggestion.sampled_envelopes++;
      const decoded = decodePayload(format, envelope.payload, envelope.content_type ?? null);
      suggestion.formats[decoded.format] = (suggestion.formats[decoded.format] ?? 0) + 1;
      for (const document of decoded.documents) {
        suggestion.sampled_rows++;
        if ('rejected' in document) {
          suggestion.rows_rejected++;
          if (suggestion.rejection_samples.length < 10)
            suggestion.rejection_samples.push({ message_id: envelope.message_id, reason: document.rejected });
          continue;
        }
        leaves(document.value, '$', [], (path, keys, leaf) => {
          const type = typeOf(leaf, decoded.textValues);
          const known = paths.get(path) ?? { keys, type: null, seen: 0 };
          paths.set(path, { keys, type: merge(known.type, type), seen: known.seen + (type === null ? 0 : 1) });
        });
      }
    }
    if (suggestion.sampled_envelopes >= sample) break;
  }

  const taken = new Set<string>();
  const usable = [...paths.entries()].filter(([path, entry]) => path.length <= 512 && entry.seen > 0);
  for (const [path, entry] of usable.slice(0, suggestionLimits.maxColumns)) {
    const name = nameFor(entry.keys, taken);
    taken.add(name);
    const type = entry.type ?? 'string';
    suggestion.columns.push({ name, path, type: columnTypes.includes(type) ? type : 'string', seen: entry.seen });
  }
  suggestion.more_paths = Math.max(0, usable.length - suggestionLimits.maxColumns);
  return suggestion;
}
