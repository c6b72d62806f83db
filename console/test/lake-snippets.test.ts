/**
 * The snippets a data set's page offers for other engines: pasted as shown, they run, whatever the
 * table's location holds.
 */
import { describe, expect, it } from 'vitest';
import { lakeSnippets } from '../src/views/connection/data-set.ts';

describe('the lake snippets of a data set', () => {
  it("quote the metadata location as a SQL literal, a quote in the store's prefix doubled", () => {
    const snippets = Object.fromEntries(
      lakeSnippets({
        catalogUri: 'https://tributary.example.com/iceberg',
        namespace: 'acme',
        dataSetId: '0d9c1b52-3a57-4c1e-9d07-1a2b3c4d5e6f',
        metadataLocation: "s3://lake/o'brien/datasets/0d9c/metadata/00002-a.metadata.json",
      }),
    );
    expect(snippets.DuckDB?.split('\n').at(-1)).toBe(
      "SELECT dt, count(*) FROM iceberg_scan('s3://lake/o''brien/datasets/0d9c/metadata/00002-a.metadata.json') GROUP BY dt ORDER BY dt;",
    );
  });
});
