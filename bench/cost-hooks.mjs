/**
 * Module hooks for the cost bench: every module under functions/ is served as a thin module that
 * re-exports the original and replaces its `handler` with the meter's timed wrapper
 * (bench/cost-meter.ts). Nothing else changes, and nothing of this reaches a deployed bundle.
 */
let root = '';
let meterUrl = '';

export function initialize(data) {
  root = data.root;
  meterUrl = data.meterUrl;
}

export async function load(url, context, nextLoad) {
  if (url.startsWith(`${root}functions/`) && url.endsWith('.ts')) {
    const original = JSON.stringify(`${url}?original`);
    const entry = JSON.stringify(url.slice(root.length));
    return {
      format: 'module',
      shortCircuit: true,
      source: [
        `export * from ${original};`,
        `import * as original from ${original};`,
        `import { wrapHandler } from ${JSON.stringify(meterUrl)};`,
        `export const handler = wrapHandler(${entry}, original.handler);`,
      ].join('\n'),
    };
  }
  return nextLoad(url, context);
}
