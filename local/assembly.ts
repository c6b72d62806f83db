/**
 * The cloud assembly local mode runs: what `cdk synth` makes for a deployment, templates and the
 * function bundles `cdk deploy` uploads (each in an asset folder of its own), made by the stack's
 * own code (bin/app.ts) and kept under `.build/assemblies/<hash>`. It is made again only when what the
 * synthesis reads has changed: the stack and function sources, the dependencies, the CDK settings,
 * and the deployment settings local mode gives it, all hashed together. A first start pays for the
 * synthesis (every function bundled by esbuild, as a deploy does); a later one reads the hash and
 * goes on.
 *
 * Deployment settings: local mode synthesises the default deployment, with the buckets of
 * LOCAL_BUCKETS as `tenantBuckets` (stores registered there without keys are reached with the
 * platform's own role, as on AWS, and the role allows exactly those buckets).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { policyChecksContext, synthProgressPrefix, synthProgressVariable } from '#lib/synth-context.ts';

/** The repository: the nearest folder above this module with cdk.json (this module may run from a build). */
function repositoryRoot(): string {
  for (let directory = import.meta.dirname; ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, 'cdk.json'))) return directory;
    if (path.dirname(directory) === directory) throw new Error(`No cdk.json above ${import.meta.dirname}`);
  }
}

const root = repositoryRoot();
/** What the synthesis reads, besides node_modules (pinned by the lock file). */
const inputDirectories = ['bin', 'lib', 'shared', 'functions', 'console'];
const inputFiles = ['package.json', 'package-lock.json', 'cdk.json', 'tsconfig.json'];

export interface AssemblyOptions {
  /** Buckets reached with the platform's own role (the deployment's `tenantBuckets`). */
  tenantBuckets: string[];
  /** Where assemblies are kept, one folder per hash (default `.build/assemblies` in the repository). */
  parent?: string;
  log?: (line: string) => void;
}

export interface Assembly {
  directory: string;
  hash: string;
  /** Whether this call synthesised it (false: the one already there was current). */
  built: boolean;
  seconds: number;
}

function filesUnder(directory: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  if (existsSync(directory)) walk(directory);
  return files;
}

/**
 * The CDK context `cdk synth` would pass from cdk.json, with local mode's deployment settings, and
 * without the policy checks (cdk-nag, Control Tower's controls): they judge the templates and leave
 * them as they are, and took two thirds of a synth; `cdk synth` and the CDK tests run them.
 */
function synthContext(options: AssemblyOptions): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(root, 'cdk.json'), 'utf8')) as { context?: object };
  return { ...cdkJson.context, tenantBuckets: options.tenantBuckets.join(','), [policyChecksContext]: 'skip' };
}

/** A hash of everything the synthesis reads, so an unchanged tree is never synthesised twice. */
export function assemblyHash(options: AssemblyOptions): string {
  const hash = createHash('sha256');
  hash.update(`node ${process.version}\n${JSON.stringify(synthContext(options))}\n`);
  const files = [
    ...inputDirectories.flatMap((directory) => filesUnder(path.join(root, directory))),
    ...inputFiles.map((file) => path.join(root, file)),
  ].sort();
  for (const file of files) {
    hash.update(`${path.relative(root, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 32);
}

const stampFile = 'local-mode.hash';

function synthEnvironment(outdir: string, context: Record<string, unknown>): NodeJS.ProcessEnv {
  // Env-agnostic, as a synth without an account is: account and region stay tokens.
  const { CDK_DEFAULT_ACCOUNT: _account, CDK_DEFAULT_REGION: _region, ...env } = process.env;
  return {
    ...env,
    CDK_OUTDIR: outdir,
    CDK_CONTEXT_JSON: JSON.stringify(context),
    // CDK's own check of the templates against CloudFormation's schema, likewise left to `cdk synth`.
    CDK_VALIDATION: 'false',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * Synthesises the app into `outdir` in a process of its own, as `cdk synth` runs bin/app.ts, and
 * logs the steps it reports (lib/synth-context.ts).
 */
function synthesise(outdir: string, context: Record<string, unknown>, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin', 'app.ts')], {
      cwd: root,
      env: { ...synthEnvironment(outdir, context), [synthProgressVariable]: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith(synthProgressPrefix)) log(`  ${line.slice(synthProgressPrefix.length)}`);
        else keep(Buffer.from(`${line}\n`));
      }
    });
    child.stderr.on('data', keep);
    // A start that fails meanwhile (a port in use) ends the synthesis with it: left running, it would
    // go on writing the kept bundles under the next start's feet.
    const endWithParent = () => child.kill();
    process.once('exit', endWithParent);
    child.once('error', reject);
    child.once('exit', (code) => {
      process.off('exit', endWithParent);
      if (code === 0) resolve();
      else reject(new Error(`Synthesising the stacks failed (exit ${code}):\n${output}`));
    });
  });
}

/** Holds `lock` (a directory) while `work` runs; a lock whose holder is gone is taken over. */
async function whileLocked<T>(lock: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = 0;
      try {
        holder = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        // Being written, or left without a pid: judged by its age below.
      }
      const alive = (() => {
        if (!holder) return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000;
        try {
          process.kill(holder, 0);
          return true;
        } catch {
          return false;
        }
      })();
      if (!alive) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * The assembly for the current sources, synthesised first if the one kept is not theirs. Several
 * processes may ask at once (the tests, a second `npm start`): one synthesises, the others wait.
 */
export async function ensureAssembly(options: AssemblyOptions): Promise<Assembly> {
  const started = Date.now();
  const parent = options.parent ?? path.join(root, '.build', 'assemblies');
  const hash = assemblyHash(options);
  const directory = path.join(parent, hash);
  const current = () => existsSync(path.join(directory, stampFile));
  const done = (built: boolean): Assembly => ({ directory, hash, built, seconds: (Date.now() - started) / 1000 });
  if (current()) return done(false);
  mkdirSync(parent, { recursive: true });
  return whileLocked(path.join(parent, 'lock'), async () => {
    if (current()) return done(false);
    options.log?.(
      'Synthesising the cloud assembly `cdk deploy` would deploy (first start, or the sources changed; later starts reuse it)…',
    );
    const building = `${directory}.building`;
    rmSync(building, { recursive: true, force: true });
    try {
      await synthesise(building, synthContext(options), options.log ?? (() => undefined));
      writeFileSync(path.join(building, stampFile), `${hash}\n`);
      renameSync(building, directory);
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    // Older assemblies go, but the one before stays: a service started from it may still be running.
    const older = readdirSync(parent)
      .filter((name) => /^[0-9a-f]{32}$/.test(name) && name !== hash)
      .map((name) => ({ name, at: statSync(path.join(parent, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { name } of older.slice(1)) rmSync(path.join(parent, name), { recursive: true, force: true });
    const result = done(true);
    options.log?.(
      `Synthesised the cloud assembly in ${result.seconds.toFixed(1)} s (${path.relative(root, directory)})`,
    );
    return result;
  });
}
