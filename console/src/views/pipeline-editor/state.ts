/**
 * A saved pipeline's state and what an operator does with it: run its deployed version (the new
 * job linked), disable it (no run starts, by a trigger or new data) and enable it again. A refused
 * run says why in plain words.
 */
import { type Answer, api, type Schemas } from '../../api.ts';
import { type Explained, el, facts, notice, outcomeRegion, replace, showOutcome, when } from '../../dom.ts';

type Pipeline = Schemas['Pipeline'];

const whyRefused: Explained = {
  PIPELINE_NOT_DEPLOYED:
    'This pipeline has no deployed version yet, so there is nothing to run: deploy it first (“Save and deploy”).',
  PIPELINE_DISABLED: 'This pipeline is disabled, so it does not run: enable it first.',
};

export function pipelineState(pipelineId: string, may: { run: boolean; write: boolean }, signal: AbortSignal) {
  const path = `api/pipelines/${pipelineId}`;
  const shown = el('div');
  const outcome = outcomeRegion();
  const element = el('div', {}, shown, outcome);

  const draw = (pipeline: Pipeline) => {
    const button = (label: string, action: () => Promise<HTMLElement>, primary = false) =>
      el(
        'button',
        {
          type: 'button',
          class: primary ? 'primary' : null,
          onclick: () => void showOutcome(outcome, action, whyRefused).then(load),
        },
        label,
      );
    replace(
      shown,
      facts(
        ['Status', pipeline.status, 'pipeline-status'],
        [
          'Deployed version',
          pipeline.deployed_version
            ? `${pipeline.deployed_version}, at ${when(pipeline.deployed_at)}`
            : 'none: not deployed yet',
          'pipeline-deployed',
        ],
        ['Working version', pipeline.working_version],
      ),
      el(
        'div',
        { class: 'actions' },
        may.run ? button('Run', run, true) : null,
        may.write && pipeline.status === 'Active' ? button('Disable', () => move('disable')) : null,
        may.write && pipeline.status !== 'Active' ? button('Enable', () => move('enable')) : null,
      ),
    );
  };

  async function run(): Promise<HTMLElement> {
    const started = await api<Answer<'/api/pipelines/{pipeline_id}/trigger', 'post'>>(`${path}/trigger`, {
      method: 'POST',
      body: {},
      signal,
    });
    return notice(
      'Run started: ',
      el('a', { href: `#/jobs/${started.job_id}`, id: 'started-job' }, `job ${started.job_id.slice(0, 8)}`),
      '.',
    );
  }

  async function move(action: 'disable' | 'enable'): Promise<HTMLElement> {
    await api(`${path}/${action}`, { method: 'POST', signal });
    return notice(
      action === 'disable'
        ? 'Disabled: it does not run, by a trigger or on new data, until it is enabled.'
        : 'Enabled: it runs when triggered (and on new data, if it is set to).',
    );
  }

  /** Reads the pipeline again and draws it (after a save, and after each action). */
  async function load(): Promise<void> {
    try {
      draw(await api<Pipeline>(path, { signal }));
    } catch (error) {
      if (!signal.aborted) await showOutcome(outcome, () => Promise.reject(error));
    }
  }

  return { element, draw, load };
}
