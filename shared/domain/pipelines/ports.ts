import type { Page, PageRequest } from '../pagination.ts';
import type { DeployedVersion, Pipeline, PipelineProgress } from './model.ts';

export interface PipelineRepository {
  createPipeline(pipeline: Pipeline): Promise<void>;
  getPipeline(pipelineId: string): Promise<(Pipeline & PipelineProgress) | null>;
  listPipelinesByTenant(tenantId: string, page: PageRequest): Promise<Page<Pipeline>>;
  listAllPipelines(page: PageRequest): Promise<Page<Pipeline>>;
  /** Applies changes only if the pipeline is still at `expectedWorkingVersion`; CONFLICT otherwise. */
  updatePipeline(
    pipelineId: string,
    expectedWorkingVersion: number,
    changes: Partial<Pick<Pipeline, 'name' | 'definition' | 'status' | 'working_version'>>,
    now: Date,
  ): Promise<void>;
  /** Stores the snapshot and points the pipeline at it, if the pipeline is still at that working version. */
  deployVersion(snapshot: DeployedVersion, now: Date): Promise<void>;
  getDeployedVersion(pipelineId: string, version: number): Promise<DeployedVersion | null>;
  deletePipeline(pipelineId: string): Promise<void>;
  /** Advances what the pipeline has processed, if nobody else advanced it meanwhile. */
  saveProgress(
    pipelineId: string,
    expected: PipelineProgress['checkpoint'],
    progress: PipelineProgress,
    now: Date,
  ): Promise<void>;
}
