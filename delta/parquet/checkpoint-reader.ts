/**
 * Reads Delta checkpoints with hyparquet: plain JavaScript, so every function that opens a table
 * (the API's files route too) can read them without loading WebAssembly. It handles the snappy and
 * uncompressed checkpoints Delta writers produce; a checkpoint in another codec fails loudly.
 *
 * Each row of a checkpoint sets one of five struct columns and leaves the others null, and
 * assembling a struct costs the same per row whether it is null or not. So each row group is read
 * with only the columns its statistics say hold a value: in the checkpoints Tributary writes (rows
 * grouped by action type, see checkpoint-writer.ts) the row groups of adds read only `add`. A row
 * group without statistics is read whole.
 */
import { type FileMetaData, parquetMetadata, parquetReadObjects } from 'hyparquet';
import { type Action, normaliseAction } from '../kernel/log.ts';

/** The action columns a checkpoint may have (V2 checkpoints add the last two); any other column is not read. */
const actionColumns = [
  'txn',
  'add',
  'remove',
  'metaData',
  'protocol',
  'domainMetadata',
  'checkpointMetadata',
  'sidecar',
];

/** Row ranges to read, each with the action columns set somewhere in it; neighbours that need the same columns merge. */
function spans(metadata: FileMetaData): { rowStart: number; rowEnd: number; columns: string[] }[] {
  const result: { rowStart: number; rowEnd: number; columns: string[] }[] = [];
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const set = new Set<string>();
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      const column = meta?.path_in_schema[0];
      if (!meta || !column) continue;
      const nulls = meta.statistics?.null_count;
      if (nulls === undefined || nulls === null || Number(nulls) < Number(meta.num_values)) set.add(column);
    }
    const columns = actionColumns.filter((column) => set.has(column));
    const last = result.at(-1);
    if (last && last.rowEnd === rowStart && last.columns.join() === columns.join()) last.rowEnd = rowEnd;
    else if (columns.length > 0) result.push({ rowStart, rowEnd, columns });
    rowStart = rowEnd;
  }
  return result;
}

export async function decodeCheckpoint(bytes: Uint8Array): Promise<Action[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const actions: Action[] = [];
  for (const span of spans(metadata)) {
    for (const row of await parquetReadObjects({ file, metadata, ...span })) {
      const action = normaliseAction(row as Record<string, unknown>);
      if (action) actions.push(action);
    }
  }
  return actions;
}
