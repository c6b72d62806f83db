import * as z from 'zod';
import { decodeFormats } from '../../domain/pipelines/decode-formats.ts';
import { columnTypes, pipelineDefinition, pipelineDefinitionInput } from '../../domain/pipelines/definition.ts';
import { pipelineStatuses } from '../../domain/pipelines/model.ts';
import { suggestionLimits } from '../../domain/pipelines/suggestion-limits.ts';
import { storedJson } from '../../domain/stored-json.ts';
import { id, name, nextCursor, nullableTimestamp, pageQuery, timestamp } from './common.ts';

export const pipelineIdParams = z.strictObject({ pipeline_id: id });

export const pipeline = z
  .object({
    pipeline_id: id,
    tenant_id: id,
    name: z.string(),
    definition: pipelineDefinition.nullable(),
    status: z.enum(pipelineStatuses),
    working_set_id: id,
    working_version: z.number().int(),
    deployed_version: z.number().int(),
    deployed_at: nullableTimestamp,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Pipeline' });

export const listPipelinesQuery = z.strictObject({ tenant_id: id.optional(), ...pageQuery });
export const listPipelinesResponse = z.object({ pipelines: z.array(pipeline), next_cursor: nextCursor });
export const createPipelineBody = z.strictObject({
  tenant_id: id.optional(),
  name: name(200),
  definition: pipelineDefinitionInput.nullable().optional(),
});
export const createPipelineResponse = z.object({ pipeline_id: id });
export const updateDefinitionBody = z.strictObject({ definition: pipelineDefinitionInput });
export const deployBody = z.strictObject({ version: z.number().int().min(1).optional() });
export const renameBody = z.strictObject({ name: name(200) });
/** A day of a ranged re-run: the source's dt (UTC date). */
export const rerunDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date: YYYY-MM-DD')
  .meta({ description: 'A day (UTC, YYYY-MM-DD) of a ranged re-run; `from` and `to` go together, at most 31 days' });
export const rerunFields = {
  from: rerunDay
    .optional()
    .meta({ description: 'Re-run from this day: the output’s rows of from…to are replaced in one commit' }),
  to: rerunDay.optional().meta({ description: 'The last day re-run (inclusive)' }),
};
/** A run's parameters are kept on its job item, as given. */
export const maxRunParametersBytes = 16 * 1024;
export const runParameters = storedJson(z.record(z.string(), z.unknown()), maxRunParametersBytes).meta({
  description: `Kept with the job as given: at most ${maxRunParametersBytes.toLocaleString('en')} bytes of JSON`,
});
export const triggerBody = z.strictObject({
  parameters: runParameters.optional(),
  ...rerunFields,
});
export const triggerResponse = z.object({ job_id: id });

export const suggestColumnsBody = z.strictObject({
  format: z.enum(decodeFormats).default('auto'),
  sample: z.number().int().min(1).max(suggestionLimits.maxSample).default(suggestionLimits.defaultSample),
});
export const columnSuggestion = z
  .object({
    decode: z.object({ format: z.enum(decodeFormats) }),
    sampled_envelopes: z.number().int(),
    sampled_rows: z.number().int(),
    formats: z.record(z.string(), z.number().int()),
    rows_rejected: z.number().int(),
    rejection_samples: z.array(z.object({ message_id: z.string(), reason: z.string() })),
    columns: z.array(
      z.object({
        name: z.string(),
        path: z.string(),
        type: z.enum(columnTypes),
        seen: z.number().int().meta({ description: 'Sampled rows with a value at the path' }),
      }),
    ),
    more_paths: z.number().int(),
  })
  .meta({ id: 'ColumnSuggestion' });
