/**
 * A connection's page: what it is and how to send to it, its figures, how fresh its table is kept,
 * its traffic, how it checks senders and how to point a provider at it, what failed, what was
 * refused, and what its data set holds. Each part (./connection/) asks and draws on its own; this
 * view lays them out, tells what the operator's actions came to, and polls.
 */
import { api, type Caller, type ConnectionDetail, type SourceSecurity } from '../api.ts';
import { trafficChart } from '../chart.ts';
import { notice, outcomeRegion, replace, section, showOutcome } from '../dom.ts';
import { type Act, every, pollMs, type View } from '../view.ts';
import { dataSetFiles, dataSetReading, dataSetRuns } from './connection/data-set.ts';
import { failedDeliveries } from './connection/failed-deliveries.ts';
import { connectionFigures } from './connection/figures.ts';
import { freshnessTarget } from './connection/freshness.ts';
import { connectionHead } from './connection/head.ts';
import { recentRejections } from './connection/rejections.ts';
import { securitySettings } from './connection/security.ts';
import { senderSetupSection } from './connection/sender-setup.ts';
import { tryIt } from './connection/try-it.ts';

export function connectionView(connectionId: string): View {
  return async (main, caller, signal) => {
    const base = `api/connections/${connectionId}`;
    const [connection, security] = await Promise.all([
      api<ConnectionDetail>(base, { signal }),
      api<SourceSecurity>(`${base}/security`, { signal }),
    ]);
    // The URL its senders were given (URL-signing providers sign it), not one built from this page's host.
    const ingestUrl = connection.ingest_url ?? new URL(`api/ingest/${connection.source_id}`, location.href).href;
    const may = (permission: Caller['permissions'][number]) => caller.permissions.includes(permission);

    const outcome = outcomeRegion();
    const act: Act = async (run) => {
      await showOutcome(outcome, async () => notice(await run()));
      await refresh();
    };
    const head = connectionHead(connection, ingestUrl, may('connections.operate'), act);
    const figures = connectionFigures(base);
    const freshness = freshnessTarget(connection.data_set_id, may('data-sets.delete'));
    const traffic = trafficChart(`${base}/stats/history`, 'Traffic of this connection', signal);
    const settings = securitySettings(security);
    const trial = tryIt(ingestUrl, security, (text) => replace(outcome, notice(text)));
    const senders = senderSetupSection(base, ingestUrl, security, may('connections.manage'), (saved) => {
      settings.show(saved);
      trial.show(saved);
    });
    const failed = failedDeliveries(base, may('connections.operate'), act);
    const rejections = recentRejections(base);
    const runs = dataSetRuns(connection.data_set_id);
    const files = dataSetFiles(connection.data_set_id);
    const reading = dataSetReading(connection.data_set_id);
    const polled = [figures, rejections, failed, runs, files, reading];
    const refresh = () => Promise.all(polled.map((part) => part.refresh()));

    replace(
      main,
      head,
      outcome,
      figures.alert,
      section('Try it', 'try-title', trial.element),
      section('Figures', 'figures-title', figures.element),
      section('Freshness', 'freshness-title', freshness.element),
      section('Traffic', 'traffic-title', traffic.element),
      section('Security settings', 'security-title', settings.element),
      section('Point a provider at it', 'senders-title', senders),
      section('Failed deliveries', 'failed-title', failed.element),
      section('Recent rejections', 'rejections-title', rejections.element),
      section('Runs', 'runs-title', runs.element),
      section('Files', 'files-title', files.element),
      section('Read it with other engines', 'lake-title', reading.element),
    );

    // Not awaited: a part whose answer is slow (a store that hangs) must not hold the others.
    void Promise.all([refresh(), traffic.load(), freshness.load()]);
    every(signal, pollMs, () => {
      // A poll would redraw the rows under an open confirmation.
      if (!main.querySelector('dialog[open]')) void Promise.all([refresh(), traffic.follow()]);
    });
    return undefined;
  };
}
