/**
 * X-Ray subsegments for AWS SDK calls (Powertools Tracer), in the functions whose bundle the stack
 * builds with TRIBUTARY_TRACING=true: active tracing is on for the deployment (context value
 * `tracing=true`) and a trace of the function's calls is worth the tracer's bundle size. The stack
 * sets the value at bundle time, so in every other bundle the condition below is false when esbuild
 * reads it and the tracer is not bundled at all.
 */
type Client = object;

const clients: Client[] = [];
let loaded: Promise<void> | undefined;
let capture: ((client: Client) => void) | undefined;

function load(): Promise<void> | undefined {
  if (process.env.TRIBUTARY_TRACING === 'true') {
    loaded ??= import('@aws-lambda-powertools/tracer').then(({ Tracer }) => {
      const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tributary' });
      capture = (client) => tracer.captureAWSv3Client(client);
      for (const client of clients) capture(client);
    });
  }
  return loaded;
}

/** An SDK client, its calls traced when tracing is built in (now, or once the tracer has loaded). */
export function traced<C extends Client>(client: C): C {
  if (capture) capture(client);
  else if (load()) clients.push(client);
  return client;
}

/** Resolves once the tracer is ready, when it is built in; undefined otherwise. */
export function tracingReady(): Promise<void> | undefined {
  return load();
}
