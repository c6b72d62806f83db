/**
 * What Lambda's Node.js runtime does for a function, locally: it loads the function's code from its
 * asset folder alone, with the template's handler, under the function's own environment, and gives
 * it nothing but Node's own modules: its AWS SDK is inside its bundle, as deployed, and any package
 * its bundle expects beside it fails to load, as it would on Lambda.
 *
 * Several functions share a thread (the HTTP front runs every route's), so each runs in a scope of
 * its own (AsyncLocalStorage): `process.env` answers with the environment of the function whose
 * code is running, from its loading on through every invocation and whatever they start, for the
 * bundle's code and the SDK's alike. The environment of the thread itself shows outside any scope.
 *
 * An invocation stopped at its timeout (Lambda freezes and discards its environment) reaches
 * nothing any more: whatever it still tries to send over the network fails at once, so no call it
 * had not made by then is ever made.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import Module, { createRequire, isBuiltin } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface FunctionScope {
  env: Record<string, string>;
  /** Set once the invocation was stopped at its timeout. */
  stopped?: string;
}

const scopes = new AsyncLocalStorage<FunctionScope>();

export const currentScope = (): FunctionScope | undefined => scopes.getStore();

export function inScope<T>(scope: FunctionScope, work: () => T): T {
  return scopes.run(scope, work);
}

let installed = false;

class StoppedInvocation extends Error {
  constructor(why: string) {
    super(`The invocation was stopped (${why}): Lambda would have frozen it, so it reaches nothing any more`);
  }
}

function refuseWhenStopped<F extends (...args: never[]) => unknown>(original: F): F {
  return function (this: unknown, ...args: never[]) {
    const stopped = scopes.getStore()?.stopped;
    if (stopped) throw new StoppedInvocation(stopped);
    return original.apply(this, args);
  } as F;
}

/** Scoped environments and the stop of network access, for this thread (idempotent). */
export function installFunctionScopes(): void {
  if (installed) return;
  installed = true;
  const own = process.env;
  const current = () => scopes.getStore()?.env ?? own;
  const env = new Proxy(own, {
    get: (_, name) => (typeof name === 'string' ? current()[name] : undefined),
    has: (_, name) => typeof name === 'string' && name in current(),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, name) => {
      const value = typeof name === 'string' ? current()[name] : undefined;
      return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
    },
    set: (_, name, value) => {
      if (typeof name === 'string') current()[name] = String(value);
      return true;
    },
    deleteProperty: (_, name) => {
      if (typeof name === 'string') delete current()[name];
      return true;
    },
  });
  Object.defineProperty(process, 'env', { value: env, writable: true, configurable: true, enumerable: true });
  http.request = refuseWhenStopped(http.request);
  http.get = refuseWhenStopped(http.get);
  https.request = refuseWhenStopped(https.request);
  https.get = refuseWhenStopped(https.get);
  net.connect = refuseWhenStopped(net.connect);
  net.createConnection = refuseWhenStopped(net.createConnection);
  globalThis.fetch = refuseWhenStopped(globalThis.fetch);
}

const nodeRequire = createRequire(import.meta.url);

export type LambdaHandler = (event: unknown, context: unknown) => Promise<unknown>;

function notFound(request: string, from: string): Error {
  return Object.assign(
    new Error(
      `Cannot find module '${request}' (required from ${from}): a function has its bundle and Node's own modules, nothing else (its AWS SDK is inside its bundle)`,
    ),
    {
      code: 'MODULE_NOT_FOUND',
    },
  );
}

/** A CommonJS file of the asset folder, with a require that sees the folder, Node and the SDK only. */
function loadCommonJs(file: string, root: string, cache: Map<string, Module>): unknown {
  const cached = cache.get(file);
  if (cached) return cached.exports;
  const module = new Module(file);
  module.filename = file;
  module.paths = [];
  cache.set(file, module);
  module.require = ((request: string) => {
    if (isBuiltin(request)) return nodeRequire(request);
    if (request.startsWith('./') || request.startsWith('../') || path.isAbsolute(request)) {
      const target = path.resolve(path.dirname(file), request);
      const candidates = [target, `${target}.js`, `${target}.cjs`, `${target}.json`, path.join(target, 'index.js')];
      const found = candidates.find((candidate) => {
        try {
          return candidate.startsWith(`${root}${path.sep}`) && readFileSync(candidate) !== undefined;
        } catch {
          return false;
        }
      });
      if (!found) throw notFound(request, file);
      if (found.endsWith('.json')) return JSON.parse(readFileSync(found, 'utf8'));
      return loadCommonJs(found, root, cache);
    }
    throw notFound(request, file);
  }) as NodeJS.Require;
  (module as unknown as { _compile(content: string, filename: string): void })._compile(
    readFileSync(file, 'utf8'),
    file,
  );
  module.loaded = true;
  return module.exports;
}

/**
 * Loads a function's handler (`index.handler`: the `handler` export of index.js, .cjs or .mjs in the
 * asset folder) in the function's scope, as Lambda's init phase does. A `.js` file is CommonJS
 * unless a package.json in the folder says otherwise, as on Lambda, whatever surrounds the folder.
 */
export async function loadHandler(
  assetDirectory: string,
  handler: string,
  scope: FunctionScope,
): Promise<LambdaHandler> {
  const dot = handler.lastIndexOf('.');
  const [moduleName, exportName] = [handler.slice(0, dot), handler.slice(dot + 1)];
  const base = path.join(assetDirectory, moduleName);
  const typeOfFolder = (() => {
    try {
      return (JSON.parse(readFileSync(path.join(assetDirectory, 'package.json'), 'utf8')) as { type?: string }).type;
    } catch {
      return undefined;
    }
  })();
  const candidates = [`${base}.js`, `${base}.mjs`, `${base}.cjs`];
  const file = candidates.find((candidate) => {
    try {
      readFileSync(candidate);
      return true;
    } catch {
      return false;
    }
  });
  if (!file) throw new Error(`Runtime.ImportModuleError: no ${moduleName}.js, .mjs or .cjs in ${assetDirectory}`);
  const loaded = await inScope(scope, async () => {
    if (file.endsWith('.mjs') || (file.endsWith('.js') && typeOfFolder === 'module'))
      return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    return loadCommonJs(file, assetDirectory, new Map()) as Record<string, unknown>;
  });
  const fn = loaded?.[exportName];
  if (typeof fn !== 'function') throw new Error(`Runtime.HandlerNotFound: ${handler} is not a function`);
  return fn as LambdaHandler;
}
