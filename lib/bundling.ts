/**
 * How every function is bundled, in one place: the stack (lib/constructs/service-function.ts), the
 * bundle tests and `npm run bench functions` all build with buildBundles, so what they test and
 * measure is what deploys.
 *
 * Everything is inside the bundle, the AWS SDK included: the SDK version the suite tests is the one
 * that runs on Lambda, not whichever one the nodejs22.x runtime ships that day (the code depends on
 * SDK behaviour that moves between versions: checksums, `If-None-Match`, region redirects).
 *
 * CommonJS output: CommonJS dependencies such as parquet-wasm find their files beside the bundle
 * through their own __dirname. The sources stay ESM; esbuild converts.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { reportSynthProgress } from './synth-context.ts';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Whether the bundle traces its AWS SDK calls (shared/observability/tracing.ts), decided when it is
 * built: esbuild drops the tracer from every bundle built with false.
 */
export function tracingDefine(sdkCalls: boolean): Record<string, string> {
  return { 'process.env.TRIBUTARY_TRACING': JSON.stringify(String(sdkCalls)) };
}

export const esbuildSettings = {
  bundle: true,
  platform: 'node' as const,
  format: 'cjs' as const,
  target: 'node22',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  define: tracingDefine(false),
};

/** What a bundle is built from. */
export interface BundleSource {
  /** Handler module relative to the repository root. */
  entry: string;
  /** Repository-relative files the bundle reads from beside itself. */
  assets: string[];
  /** Built with the tracer (shared/observability/tracing.ts). */
  tracesSdkCalls: boolean;
}

export interface Bundle {
  source: BundleSource;
  /** The folder Lambda would run: index.js, index.js.map and the assets. */
  directory: string;
  /** index.js's size. */
  bytes: number;
  /** index.js's bytes per input, repository-relative (node_modules/… for packages). */
  inputs: Record<string, number>;
  /** Inputs evaluated when index.js is loaded: reachable from the entry without a dynamic import. */
  loadedAtStart: string[];
  /** Modules index.js requires from outside itself, Node's own excepted (none should be: Lambda has none to give). */
  external: string[];
  /** index.js's bytes but for the AWS SDK and what only the SDK brings in: what a bundle without the SDK would be. */
  bytesBesideSdk: number;
}

/**
 * Bundles each source into a folder of its own under `directory` (directory/<index>/), with its
 * assets beside index.js, in one esbuild run per tracing variant: each shared module is parsed once,
 * and every output is what a build of that function alone gives.
 */
export function buildBundles(sources: BundleSource[], directory: string): Bundle[] {
  mkdirSync(directory, { recursive: true });
  // As in a deployed asset, where no package.json says "module": index.js is CommonJS.
  writeFileSync(path.join(directory, 'package.json'), '{ "type": "commonjs" }\n');
  const bundles: Bundle[] = new Array(sources.length);
  for (const traced of [false, true]) {
    const indexes = sources.flatMap((source, index) => (source.tracesSdkCalls === traced ? [index] : []));
    if (indexes.length === 0) continue;
    const result = esbuild.buildSync({
      ...esbuildSettings,
      define: tracingDefine(traced),
      entryPoints: indexes.map((index) => ({
        in: path.join(root, (sources[index] as BundleSource).entry),
        out: `${index}/index`,
      })),
      outdir: directory,
      absWorkingDir: root,
      metafile: true,
      logLevel: 'error',
    });
    for (const index of indexes) {
      const source = sources[index] as BundleSource;
      const folder = path.join(directory, String(index));
      const outfile = path.relative(root, path.join(folder, 'index.js')).split(path.sep).join('/');
      const output = result.metafile.outputs[outfile];
      if (!output) throw new Error(`esbuild wrote no ${outfile}`);
      for (const asset of source.assets) copyFileSync(path.join(root, asset), path.join(folder, path.basename(asset)));
      bundles[index] = {
        source,
        directory: folder,
        bytes: output.bytes,
        inputs: Object.fromEntries(
          Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input, bytesInOutput]),
        ),
        loadedAtStart: reachable(
          result.metafile,
          output.entryPoint as string,
          (imported) => imported.kind !== 'dynamic-import',
        ),
        bytesBesideSdk: reachable(
          result.metafile,
          output.entryPoint as string,
          (imported) => !sdkPackage.test(imported.path),
        ).reduce((sum, input) => sum + (output.inputs[input]?.bytesInOutput ?? 0), 0),
        external: [
          ...new Set(
            Object.keys(output.inputs).flatMap((input) =>
              (result.metafile.inputs[input]?.imports ?? [])
                .filter((imported) => imported.external && !isBuiltin(imported.path))
                .map((imported) => imported.path),
            ),
          ),
        ].sort(),
      };
    }
  }
  return bundles;
}

/** The AWS SDK's packages and its Smithy runtime. */
const sdkPackage = /node_modules\/(@aws-sdk|@smithy|@aws-crypto|@aws)\//;

/** The inputs reachable from `entry` through the imports `follow` accepts. */
function reachable(
  metafile: esbuild.Metafile,
  entry: string,
  follow: (imported: esbuild.Metafile['inputs'][string]['imports'][number]) => boolean,
): string[] {
  const seen = new Set([entry]);
  const pending = [entry];
  while (pending.length > 0) {
    for (const imported of metafile.inputs[pending.pop() as string]?.imports ?? []) {
      if (imported.external || !follow(imported) || seen.has(imported.path)) continue;
      seen.add(imported.path);
      pending.push(imported.path);
    }
  }
  return [...seen].sort();
}

/**
 * The stack's bundles: the first function CDK stages builds every function the stack declared
 * (lib/functions.ts) in one esbuild run (buildBundles), each later one is copied from that build.
 * `cdk synth` of the whole app is one build instead of one per function, and a build is kept
 * (node_modules/.cache/tributary-bundles) and used again for as long as every file it read, the
 * package files and the settings are the same: a second synth of unchanged sources builds nothing.
 */
export class StackBundles {
  private static built = new Map<string, Bundle>();

  constructor(private readonly sources: BundleSource[]) {}

  /** Copies the bundle of `source` (one of this stack's) into `outputDir`, building it with the others first. */
  bundleInto(source: BundleSource, outputDir: string): void {
    const key = StackBundles.key(source);
    if (!StackBundles.built.has(key)) this.buildMissing();
    const folder = StackBundles.built.get(key)?.directory;
    if (!folder) throw new Error(`${source.entry} is not among the stack's declared functions`);
    for (const file of ['index.js', 'index.js.map']) copyFileSync(path.join(folder, file), path.join(outputDir, file));
    for (const asset of source.assets) copyFileSync(path.join(root, asset), path.join(outputDir, path.basename(asset)));
  }

  /** Every bundle this process has built or reused for a stack so far (the bundle tests read what esbuild said of each). */
  static builtSoFar(): Bundle[] {
    return [...StackBundles.built.values()];
  }

  private buildMissing(): void {
    const missing = [
      ...new Map(
        this.sources
          .filter((source) => !StackBundles.built.has(StackBundles.key(source)))
          // Assets are copied from the repository when a function is staged, not kept with the build.
          .map((source) => [StackBundles.key(source), { ...source, assets: [] }]),
      ).values(),
    ];
    const kept = keptBuild(missing);
    if (kept)
      reportSynthProgress(
        `Bundles of ${missing.length} functions reused: their sources are unchanged since they were built`,
      );
    else reportSynthProgress(`Bundling ${missing.length} functions with esbuild (once: later synths reuse them)…`);
    const started = Date.now();
    const bundles = kept ?? freshBuild(missing);
    if (!kept)
      reportSynthProgress(`Bundled ${missing.length} functions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const [index, bundle] of bundles.entries())
      StackBundles.built.set(StackBundles.key(missing[index] as BundleSource), bundle);
  }

  private static key(source: BundleSource): string {
    return `${source.entry}|${source.tracesSdkCalls}`;
  }
}

const cache = path.join(root, 'node_modules', '.cache', 'tributary-bundles');
/** Builds kept at once; the least recently made go first. */
const keptBuilds = 4;

interface KeptBuild {
  bundles: Omit<Bundle, 'directory'>[];
  /** Every file the build read (repository-relative), with its content's hash. */
  inputs: Record<string, string>;
}

/** What a build depends on besides the files it reads: the sources asked for, the settings, esbuild, the packages. */
function buildKey(sources: BundleSource[]): string {
  const hash = createHash('sha256').update(JSON.stringify({ sources, esbuildSettings, esbuild: esbuild.version }));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json'])
    hash.update(existsSync(path.join(root, file)) ? readFileSync(path.join(root, file)) : '');
  return hash.digest('hex').slice(0, 32);
}

const contentHash = (file: string) =>
  createHash('sha256')
    .update(readFileSync(path.join(root, file)))
    .digest('hex');

/** The kept build of these sources, if every file it read is as it was. */
function keptBuild(sources: BundleSource[]): Bundle[] | undefined {
  const directory = path.join(cache, buildKey(sources));
  try {
    const kept = JSON.parse(readFileSync(path.join(directory, 'build.json'), 'utf8')) as KeptBuild;
    for (const [input, hash] of Object.entries(kept.inputs)) if (contentHash(input) !== hash) return undefined;
    return kept.bundles.map((bundle, index) => ({ ...bundle, directory: path.join(directory, String(index)) }));
  } catch {
    return undefined;
  }
}

function freshBuild(sources: BundleSource[]): Bundle[] {
  mkdirSync(cache, { recursive: true });
  const building = mkdtempSync(path.join(cache, 'building-'));
  const bundles = buildBundles(sources, building);
  const inputs = [...new Set(bundles.flatMap((bundle) => Object.keys(bundle.inputs)))].filter((input) =>
    existsSync(path.join(root, input)),
  );
  const kept: KeptBuild = {
    bundles: bundles.map(({ directory: _, ...facts }) => facts),
    inputs: Object.fromEntries(inputs.map((input) => [input, contentHash(input)])),
  };
  writeFileSync(path.join(building, 'build.json'), JSON.stringify(kept));
  // Two synths may build at once (the suite's local service and its CDK tests, in a clean clone): a
  // build another process kept meanwhile is used as it is, never removed under it while it copies.
  const keptMeanwhile = keptBuild(sources);
  if (keptMeanwhile) {
    rmSync(building, { recursive: true, force: true });
    return keptMeanwhile;
  }
  const directory = path.join(cache, buildKey(sources));
  try {
    // A kept build of older sources is set aside in one step, then removed: no process reads it any more.
    if (existsSync(directory)) {
      const stale = `${building}-stale`;
      renameSync(directory, stale);
      rmSync(stale, { recursive: true, force: true });
    }
    renameSync(building, directory);
  } catch {
    // Another process kept its build at the same moment: this one stays where it was built.
    return bundles;
  }
  forgetOldBuilds();
  return bundles.map((bundle, index) => ({ ...bundle, directory: path.join(directory, String(index)) }));
}

/** The least recently made builds past keptBuilds go; one still being made (or left by a failed build) after a day. */
function forgetOldBuilds(): void {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  const entries = readdirSync(cache).map((name) => ({ name, made: statSync(path.join(cache, name)).mtimeMs }));
  const builds = entries.filter(({ name }) => !name.startsWith('building-')).sort((a, b) => b.made - a.made);
  const abandoned = entries.filter(({ name, made }) => name.startsWith('building-') && made < dayAgo);
  for (const { name } of [...builds.slice(keptBuilds), ...abandoned])
    rmSync(path.join(cache, name), { recursive: true, force: true });
}
