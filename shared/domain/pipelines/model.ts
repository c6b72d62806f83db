import type { PipelineDefinition } from './definition.ts';

export const pipelineStatuses = ['Active', 'Disabled'] as const;
export type PipelineStatus = (typeof pipelineStatuses)[number];

export interface Pipeline {
  pipeline_id: string;
  tenant_id: string;
  name: string;
  /** The working definition, edited by update-definition; null until one is set. */
  definition: PipelineDefinition | null;
  status: PipelineStatus;
  /** Identifies the pipeline's working copy; fixed for its lifetime. */
  working_set_id: string;
  working_version: number;
  /** 0 until the first deploy. */
  deployed_version: number;
  deployed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** What a pipeline run remembers between runs (never shown in responses). */
export interface PipelineProgress {
  /** The data set the pipeline writes to, created on its first run. */
  output_data_set_id: string | null;
  /** The last source Delta version whose rows have been written. */
  checkpoint: { data_set_id: string; version: number } | null;
  /** The last run started by new rows in the source (on_new_data). */
  automatic_run: AutomaticRun | null;
}

/** A run started by new data: its job, the source version it was queued for, the checkpoint then. */
export interface AutomaticRun {
  job_id: string;
  source_version: number;
  after: number;
}

/** An immutable snapshot of a deployed definition. */
export interface DeployedVersion {
  pipeline_id: string;
  version: number;
  definition: PipelineDefinition;
  deployed_at: string;
}
