/** A directory for the CDK tests of one run to share one synthesis of the app (test/cdk/app.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    cdkTemplates: string;
  }
}

let directory: string | undefined;

export function setup(project: TestProject): void {
  directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-cdk-'));
  project.provide('cdkTemplates', directory);
}

export function teardown(): void {
  if (directory) rmSync(directory, { recursive: true, force: true });
}
