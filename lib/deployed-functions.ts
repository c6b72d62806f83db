/**
 * The functions of a synthesised cloud assembly (`cdk synth`'s output: its templates, nested ones
 * included, and its asset folders), and each one initialised as Lambda's nodejs22.x runtime
 * initialises it: its asset folder copied alone to a directory outside the repository, its handler
 * loaded as the template names it, with the template's environment, and nothing but the bundle beside it.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');

export interface DeployedFunction {
  /** The template (file name) and the function's logical id in it. */
  template: string;
  logicalId: string;
  /** Its declaration (lib/functions.ts), when it is one of Tributary's own. */
  declared?: { name: string; kind: string; entry: string };
  handler: string;
  runtime: string;
  memoryMb: number;
  timeoutSeconds: number;
  reservedConcurrency?: number;
  /** The asset folder the function's code is uploaded from (absolute). */
  assetDirectory: string;
  /** Environment variables, references to other resources replaced by placeholder strings. */
  environment: Record<string, string>;
}

interface Template {
  Resources?: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }
  >;
}

/** Every Lambda function of the assembly in `directory`, in every template. */
export function deployedFunctions(directory: string): DeployedFunction[] {
  const assetFolders = new Map<string, string>();
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.assets.json'))) {
    const manifest = JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as {
      files?: Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }>;
    };
    for (const asset of Object.values(manifest.files ?? {}))
      for (const destination of Object.values(asset.destinations))
        assetFolders.set(destination.objectKey, path.join(directory, asset.source.path));
  }
  const templates = readdirSync(directory).filter((name) => name.endsWith('.template.json'));
  return templates.flatMap((template) => {
    const { Resources = {} } = JSON.parse(readFileSync(path.join(directory, template), 'utf8')) as Template;
    return Object.entries(Resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([logicalId, { Properties = {}, Metadata = {} }]) => {
        const code = Properties.Code as { S3Key?: unknown };
        const assetDirectory = typeof code.S3Key === 'string' ? assetFolders.get(code.S3Key) : undefined;
        if (!assetDirectory) throw new Error(`${template} ${logicalId}: no asset folder for its code`);
        const variables = (Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
        return {
          template,
          logicalId,
          declared: Metadata['tributary:function'] as DeployedFunction['declared'],
          handler: String(Properties.Handler),
          runtime: String(Properties.Runtime),
          memoryMb: Number(Properties.MemorySize ?? 128),
          timeoutSeconds: Number(Properties.Timeout ?? 3),
          reservedConcurrency: Properties.ReservedConcurrentExecutions as number | undefined,
          assetDirectory,
          environment: Object.fromEntries(
            Object.entries(variables ?? {}).map(([name, value]) => [name, placeholder(value)]),
          ),
        };
      });
  });
}

/** A CloudFormation value as a string: a reference becomes a placeholder naming what it refers to. */
function placeholder(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  const [[intrinsic, argument]] = Object.entries(value as Record<string, unknown>) as [[string, unknown]];
  if (intrinsic === 'Fn::Join') {
    const [separator, parts] = argument as [string, unknown[]];
    return parts.map(placeholder).join(separator);
  }
  if (intrinsic === 'Ref')
    return String(argument).startsWith('AWS::') ? (pseudo[String(argument)] ?? 'aws') : `ref-${argument}`;
  if (intrinsic === 'Fn::GetAtt') return `${[argument].flat().join('-')}`;
  return `${intrinsic.replace('Fn::', '').toLowerCase()}-${JSON.stringify(argument).replace(/\W+/g, '-').slice(0, 60)}`;
}

const pseudo: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'us-east-1',
  'AWS::AccountId': '123456789012',
  'AWS::URLSuffix': 'amazonaws.com',
};

export interface Initialisation {
  /** Why initialising the function threw, or why its handler is not one; null when it loaded. */
  error: string | null;
}

/**
 * Copies the function's asset folder alone into a new directory outside the repository and loads
 * its handler there as Lambda's nodejs22.x runtime does (`index.handler`: index.js required as
 * CommonJS, since no package.json says otherwise, then its `handler` export), in a fresh node
 * process with the template's environment and Lambda's own variables. As on Lambda, an AWS SDK is
 * there to be found (NODE_PATH, as the runtime's own); a bundle that requires any module from
 * outside its folder, that SDK included, fails to load.
 */
export async function initialiseAlone(fn: DeployedFunction): Promise<Initialisation> {
  const sandbox = mkdtempSync(path.join(os.tmpdir(), 'tributary-lambda-'));
  const task = path.join(sandbox, 'task');
  const runtimeModules = path.join(sandbox, 'runtime', 'node_modules');
  try {
    cpSync(fn.assetDirectory, task, { recursive: true });
    mkdirSync(runtimeModules, { recursive: true });
    symlinkSync(path.join(root, 'node_modules', '@aws-sdk'), path.join(runtimeModules, '@aws-sdk'));
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', loader, task, fn.handler], {
      cwd: task,
      env: { ...lambdaEnvironment(fn, task, sandbox), NODE_PATH: runtimeModules },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Initialisation;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return { error: `the process failed: ${failure.stderr || failure.stdout || failure.message}`.slice(0, 2000) };
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}

/** initialiseAlone for each function, a few at a time. */
export async function initialiseEachAlone(functions: DeployedFunction[], atOnce = 3): Promise<Initialisation[]> {
  const results: Initialisation[] = new Array(functions.length);
  let next = 0;
  const worker = async () => {
    while (next < functions.length) {
      const index = next++;
      results[index] = await initialiseAlone(functions[index] as DeployedFunction);
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
  return results;
}

/** What Lambda sets in every function's environment, then the template's variables. */
function lambdaEnvironment(fn: DeployedFunction, task: string, sandbox: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: sandbox,
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: task,
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.logicalId}`,
    AWS_LAMBDA_LOG_STREAM_NAME: '2025/01/01/[$LATEST]0123456789abcdef',
    AWS_ACCESS_KEY_ID: 'ASIAPLACEHOLDER',
    AWS_SECRET_ACCESS_KEY: 'placeholder',
    AWS_SESSION_TOKEN: 'placeholder',
    ...fn.environment,
  };
}

/**
 * Run with the task folder and the handler string: resolves the module the way Lambda's runtime
 * does for a CommonJS module, refuses every module resolved outside the task folder, and prints
 * the outcome as JSON on its last line.
 */
const loader = `
const Module = require('node:module');
const path = require('node:path');
const [task, handler] = process.argv.slice(1);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const resolved = resolve.call(this, request, ...rest);
  if (!Module.isBuiltin(resolved) && path.relative(task, resolved).startsWith('..'))
    throw new Error('requires ' + request + ' from outside its folder (' + resolved + ')');
  return resolved;
};
let error = null;
try {
  const dot = handler.lastIndexOf('.');
  const exported = require(path.join(task, handler.slice(0, dot)))[handler.slice(dot + 1)];
  if (typeof exported !== 'function') error = handler + ' is not a function';
} catch (thrown) {
  error = String((thrown && thrown.stack) || thrown).split('\\n').slice(0, 4).join(' | ');
}
setImmediate(() => { process.stdout.write('\\n' + JSON.stringify({ error }) + '\\n'); process.exit(0); });
`;
