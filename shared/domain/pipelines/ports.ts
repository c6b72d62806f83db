import type { Page, PageRequest } from '../pagination.ts';
import type { AutomaticRun, DeployedVersion, Pipeline, PipelineProgress } from './model.ts';

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
  /**
   * Stores the snapshot and points the pipeline at it, if the pipeline is still at that working
   * version. A definition with on_new_data also starts watching its source (SourceWatch), marked.
   */
  deployVersion(snapshot: DeployedVersion, now: Date): Promise<void>;
  getDeployedVersion(pipelineId: string, version: number): Promise<DeployedVersion | null>;
  deletePipeline(pipelineId: string): Promise<void>;
  /** Advances what the pipeline has processed, if nobody else advanced it (or named another output) meanwhile. */
  saveProgress(
    pipelineId: string,
    expected: Pick<PipelineProgress, 'output_data_set_id' | 'checkpoint'>,
    progress: Pick<PipelineProgress, 'output_data_set_id' | 'checkpoint'>,
    now: Date,
  ): Promise<void>;
  /** Records the run new data started, if the last one is still `previousJobId`; false otherwise. */
  recordAutomaticRun(pipelineId: string, previousJobId: string | null, run: AutomaticRun): Promise<boolean>;
}

/**
 * The data sets that pipelines running on new data watch (added by their deploy), and which of
 * them got new rows since: each commit of a watched data set raises its mark.
 */
export interface SourceWatch {
  /** Watched data sets with rows noted since they were last settled, with their current mark. */
  sourcesWithNewRows(): Promise<{ dataSetId: string; mark: number }[]>;
  watchersOf(dataSetId: string): Promise<string[]>;
  unwatch(dataSetId: string, pipelineId: string): Promise<void>;
  /** Settles the data set's new rows, unless more were noted after `mark`; false then. */
  settleNewRows(dataSetId: string, mark: number): Promise<boolean>;
}
