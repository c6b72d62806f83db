/**
 * When a committed version makes a table due for maintenance (shared/domain/datasets/maintenance-due.ts),
 * as a matrix written out: the version, whether the table checkpoints at it, how many partitions have
 * piled up small files, when its oldest day expires; and what is asked for, when.
 */
import { describe, expect, it } from 'vitest';
import { askForMaintenance, maintenanceDueAt } from '#shared/domain/datasets/maintenance-due.ts';
import { type DataSet, envelopeSchema, newDataSet } from '#shared/domain/datasets/model.ts';
import type { CommittedVersion } from '#shared/domain/datasets/table.ts';

const now = Date.parse('2026-11-23T12:00:00Z');
const expires = Date.parse('2026-12-01T00:00:00Z');

function committed(version: number, checkpoint: boolean, partitions: number, oldest: number | null): CommittedVersion {
  return { version, checkpoint, partitionsToCompact: () => partitions, oldestDayExpiresAt: () => oldest };
}

describe('maintenance due after a commit', () => {
  it('is asked for at checkpoint versions and every thousandth, now for small files or the log, else at the retention', () => {
    const cases: [CommittedVersion, number | null][] = [
      [committed(0, true, 3, expires), null],
      [committed(7, false, 3, expires), null],
      [committed(10, true, 0, null), null],
      [committed(10, true, 0, expires), expires],
      [committed(10, true, 1, expires), now],
      [committed(1000, false, 0, null), now],
      [committed(2000, true, 0, expires), now],
      [committed(1001, false, 5, expires), null],
    ];
    for (const [version, due] of cases) expect(maintenanceDueAt(version, now), JSON.stringify(version)).toBe(due);
  });

  it('asks once, for the earliest, and only warns when asking fails', async () => {
    const asked: string[] = [];
    const warnings: string[] = [];
    const dataSet = newDataSet(
      {
        data_set_id: 'da7a5e70-0000-4000-8000-000000000001',
        tenant_id: '00000000-0000-4000-8000-000000000001',
        tenant_slug: 'acme',
        name: 'hook',
        origin: { type: 'Webhook', connection_id: 'c', source_id: 's' },
        schema_json: envelopeSchema,
      },
      '2026-11-01T00:00:00.000Z',
    );
    const deps = {
      warn: (message: string) => warnings.push(message),
      async markMaintenanceDue(_: DataSet, at: Date) {
        asked.push(at.toISOString());
      },
    };
    await askForMaintenance(deps, dataSet, [committed(10, true, 0, expires), committed(1000, false, 0, null)], now);
    await askForMaintenance(deps, dataSet, [committed(11, false, 0, expires)], now);
    expect(asked).toEqual(['2026-11-23T12:00:00.000Z']);
    await askForMaintenance(
      {
        ...deps,
        markMaintenanceDue: async () => {
          throw new Error('throttled');
        },
      },
      dataSet,
      [committed(20, true, 1, null)],
      now,
    );
    expect(warnings).toEqual(['Maintenance not asked for']);
  });
});
