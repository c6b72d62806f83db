/**
 * Iceberg sync dependencies for use-case tests whose subject is something else: every sync finds
 * the table not mirrored, and nothing is recorded (iceberg-sync.test.ts tests the syncs themselves).
 */
import type { IcebergSyncDeps } from '#shared/domain/datasets/iceberg.ts';

export const icebergUntouched: IcebergSyncDeps = {
  async mirrorLatest(dataSet) {
    return { status: 'Unsupported', deltaVersion: dataSet.version ?? -1, reason: 'not mirrored in these tests' };
  },
  async recordIceberg() {},
  async markIcebergDue() {},
  failureCategory: (error) => error.name,
  now: () => Date.now(),
  warn: () => undefined,
};
