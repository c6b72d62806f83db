/**
 * A data set's Iceberg table as its metadata directory holds it: `<storage_location>/metadata/`,
 * read with the store's own credentials (table-storage.ts). `version-hint.text` names the current
 * `v<N>.metadata.json`, as readers of file-system catalogs find it. null: no metadata there yet.
 */
import type { DataSet } from '../domain/datasets/model.ts';
import { tableFiles } from './table-storage.ts';

export const icebergTables: {
  load(dataSet: DataSet): Promise<{ metadata_location: string; metadata: object } | null>;
} = {
  async load(dataSet) {
    if (!dataSet.storage_location || !dataSet.object_store_id) return null;
    const files = await tableFiles(dataSet);
    const hint = await files.getIfExists('metadata/version-hint.text');
    const version = hint?.toString('utf8').trim();
    if (!version || !/^\d{1,19}$/.test(version)) return null;
    const name = `metadata/v${version}.metadata.json`;
    const bytes = await files.getIfExists(name);
    if (!bytes) return null;
    const metadata: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return null;
    return { metadata_location: `${dataSet.storage_location}/${name}`, metadata };
  },
};
