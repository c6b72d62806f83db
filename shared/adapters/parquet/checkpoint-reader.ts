/**
 * Reads Delta checkpoints with hyparquet: plain JavaScript, so every function that opens a table
 * (the API's files route too) can read them without loading WebAssembly. It handles the snappy and
 * uncompressed checkpoints Delta writers produce; a checkpoint in another codec fails loudly.
 */
import { parquetReadObjects } from 'hyparquet';
import { type Action, normaliseAction } from '../../domain/delta/log.ts';

export async function decodeCheckpoint(bytes: Uint8Array): Promise<Action[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const rows = await parquetReadObjects({ file, columns: ['txn', 'add', 'remove', 'metaData', 'protocol'] });
  const actions: Action[] = [];
  for (const row of rows) {
    const action = normaliseAction(row as Record<string, unknown>);
    if (action) actions.push(action);
  }
  return actions;
}
