import { describe, expect, it } from 'vitest';
import { writePartitionedFiles } from '#delta/operations/data-files.ts';

describe('the data files of a commit', () => {
  it('writes each day as files of at most maxRowsPerFile rows, in that day partition, with one add per file', async () => {
    const put: { path: string; rows: string[] }[] = [];
    const rows = ['a1', 'b1', 'a2', 'a3', 'b2', 'a4', 'a5'].map((id) => ({
      id,
      dt: id.startsWith('a') ? '2026-11-20' : '2026-11-21',
    }));
    const result = await writePartitionedFiles(
      { put: async (path, body) => void put.push({ path, rows: JSON.parse(String(body)) }) },
      rows,
      {
        partitionOf: (row) => ({ dt: row.dt }),
        encode: (chunk) => ({
          bytes: Buffer.from(JSON.stringify(chunk.map((row) => row.id))),
          stats: { numRecords: chunk.length, minValues: {}, maxValues: {}, nullCount: {} },
        }),
        maxRowsPerFile: 2,
      },
    );
    expect(put.map((file) => file.rows)).toEqual([['a1', 'a2'], ['a3', 'a4'], ['a5'], ['b1', 'b2']]);
    expect(put.every((file, i) => file.path.startsWith(`dt=${i < 3 ? '2026-11-20' : '2026-11-21'}/part-`))).toBe(true);
    expect(
      result.adds.map((add) => [add.path, add.partitionValues.dt, JSON.parse(add.stats ?? 'null').numRecords]),
    ).toEqual(put.map((file, i) => [file.path, i < 3 ? '2026-11-20' : '2026-11-21', file.rows.length]));
    expect(result.bytes).toBe(result.adds.reduce((sum, add) => sum + add.size, 0));
    expect(new Set(result.adds.map((add) => add.path)).size).toBe(4);
  });
});
