/**
 * The authorising proxy (local/iam/authorizer.ts) in a worker thread of its own, so that evaluating
 * and forwarding the functions' calls never holds the HTTP front's event loop. It reads its setup
 * from `workerData`, answers `ready` with its endpoints, and reports every denial as it happens.
 */
import { isMainThread, parentPort, type Worker, workerData } from 'node:worker_threads';
import { startThread } from '../modules.ts';
import { type Authorizer, type AuthorizerSetup, type Denial, startAuthorizer } from './authorizer.ts';

type FromThread =
  | { type: 'ready'; endpoints: Authorizer['endpoints'] }
  | { type: 'denied'; denial: Denial }
  | { type: 'stats'; stats: ReturnType<Authorizer['stats']> };
type ToThread = { type: 'stats' } | { type: 'close' };

const setupKey = 'tributaryAuthorizer';

export interface AuthorizerThread {
  endpoints: Authorizer['endpoints'];
  stats(): Promise<ReturnType<Authorizer['stats']>>;
  close(): Promise<void>;
}

export function startAuthorizerThread(
  setup: AuthorizerSetup,
  onDenied: (denial: Denial) => void,
): Promise<AuthorizerThread> {
  const worker: Worker = startThread('local/iam/authorizer-thread.ts', { workerData: { [setupKey]: setup } });
  return new Promise((resolve, reject) => {
    const waiting: ((stats: ReturnType<Authorizer['stats']>) => void)[] = [];
    worker.once('error', reject);
    worker.on('message', (message: FromThread) => {
      if (message.type === 'denied') onDenied(message.denial);
      if (message.type === 'stats') waiting.shift()?.(message.stats);
      if (message.type !== 'ready') return;
      resolve({
        endpoints: message.endpoints,
        stats: () =>
          new Promise((answer) => {
            waiting.push(answer);
            worker.postMessage({ type: 'stats' } satisfies ToThread);
          }),
        async close() {
          await worker.terminate();
        },
      });
    });
  });
}

const setup = isMainThread ? undefined : (workerData as Record<string, AuthorizerSetup> | null)?.[setupKey];
if (setup && parentPort) {
  const port = parentPort;
  const authorizer = await startAuthorizer(setup, (denial) =>
    port.postMessage({ type: 'denied', denial } satisfies FromThread),
  );
  port.on('message', (message: ToThread) => {
    if (message.type === 'stats') port.postMessage({ type: 'stats', stats: authorizer.stats() } satisfies FromThread);
  });
  port.postMessage({ type: 'ready', endpoints: authorizer.endpoints } satisfies FromThread);
}
