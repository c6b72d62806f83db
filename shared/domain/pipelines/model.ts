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
  /**
   * The last source Delta version whose rows have been written; -1 with `first_read` while the first
   * read of the source (the live files of one of its snapshots, see run-pipeline.ts) is under way.
   */
  checkpoint: { data_set_id: string; version: number; first_read?: FirstRead } | null;
  /** The last run started by new rows in the source (on_new_data). */
  automatic_run: AutomaticRun | null;
}

/** How far a pipeline's first read of its source went: the snapshot it reads, and how many of its files are read. */
export interface FirstRead {
  version: number;
  files: number;
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
