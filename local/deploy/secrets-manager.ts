/**
 * Local mode's Secrets Manager: the deployment's secrets by version, each version holding staging
 * labels, as "Secrets Manager versions" (https://docs.aws.amazon.com/secretsmanager/latest/userguide/whats-in-a-shh-secret.html)
 * and the API reference describe them:
 *  - AWSCURRENT is on one version; moving it (PutSecretValue, UpdateSecretVersionStage) puts
 *    AWSPREVIOUS on the version it left;
 *  - a rotation's version is made by Secrets Manager with AWSPENDING and no value, before the
 *    rotation function runs (local/deploy/rotation.ts); GetSecretValue of a version with no value
 *    is ResourceNotFoundException;
 *  - a label is on one version at a time.
 * The secrets whose value local mode decides (the key material, from SECRETS_KEY) have one version
 * and are not kept; the others (the bootstrap key's) are made at the first start as the template's
 * GenerateSecretString says and kept in a file under DATA_DIR, written whole and renamed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';

export const current = 'AWSCURRENT';
export const pending = 'AWSPENDING';
export const previous = 'AWSPREVIOUS';

/** How the template has a secret's first value made (AWS::SecretsManager::Secret GenerateSecretString). */
export interface GeneratedValue {
  /** SecretStringTemplate and GenerateStringKey: a JSON object with the generated string under the key. */
  template?: string;
  key?: string;
  length: number;
}

export type SecretSource = { value: string } | { generate: GeneratedValue };

const versionSchema = z.object({ value: z.string().nullable(), stages: z.array(z.string()), createdAt: z.number() });
const storedSchema = z.record(z.string(), z.object({ versions: z.record(z.string(), versionSchema) }));
type Version = z.infer<typeof versionSchema>;
type Stored = z.infer<typeof storedSchema>;

const alphanumeric = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function generate(spec: GeneratedValue): string {
  const random = [...randomBytes(spec.length)].map((byte) => alphanumeric[byte % alphanumeric.length]).join('');
  if (spec.template === undefined || spec.key === undefined) return random;
  return JSON.stringify({ ...z.record(z.string(), z.unknown()).parse(JSON.parse(spec.template)), [spec.key]: random });
}

/** Secrets Manager's error, answered in its JSON shape. */
export class SecretsManagerError extends Error {
  constructor(
    readonly type:
      | 'ResourceNotFoundException'
      | 'InvalidParameterException'
      | 'InvalidRequestException'
      | 'ResourceExistsException',
    message: string,
  ) {
    super(message);
  }
}

const request = z.object({
  SecretId: z.string(),
  VersionId: z.string().optional(),
  VersionStage: z.string().optional(),
  ClientRequestToken: z.string().optional(),
  SecretString: z.string().optional(),
  VersionStages: z.array(z.string()).optional(),
  MoveToVersionId: z.string().optional(),
  RemoveFromVersionId: z.string().optional(),
});

export class LocalSecretsManager {
  private readonly stored: Stored;

  constructor(
    private readonly sources: Map<string, SecretSource>,
    /** Where the kept secrets live (null: nowhere, for a test). */
    private readonly file: string | null,
  ) {
    this.stored = file && existsSync(file) ? storedSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : {};
    for (const [arn, source] of sources) {
      if ('value' in source) {
        this.stored[arn] = { versions: { [randomUUID()]: { value: source.value, stages: [current], createdAt: 0 } } };
      } else if (!this.stored[arn]) {
        this.stored[arn] = {
          versions: { [randomUUID()]: { value: generate(source.generate), stages: [current], createdAt: Date.now() } },
        };
        this.save();
      }
    }
  }

  private save(): void {
    if (!this.file) return;
    const kept = Object.fromEntries(
      Object.entries(this.stored).filter(([arn]) => {
        const source = this.sources.get(arn);
        return source !== undefined && 'generate' in source;
      }),
    );
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.partial`, JSON.stringify(kept, null, 1), { mode: 0o600 });
    renameSync(`${this.file}.partial`, this.file);
  }

  /** The ARN a SecretId names (an ARN or a secret's name). */
  arnOf(secretId: string): string {
    const arn = Object.keys(this.stored).find(
      (each) =>
        each === secretId ||
        each
          .split(':')
          .pop()
          ?.replace(/-[A-Za-z0-9]{6}$/, '') === secretId,
    );
    if (arn === undefined)
      throw new SecretsManagerError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return arn;
  }

  private versions(arn: string): Record<string, Version> {
    const secret = this.stored[arn];
    if (!secret)
      throw new SecretsManagerError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret.versions;
  }

  /** Each version's labels. */
  stagesOf(arn: string): Record<string, string[]> {
    return Object.fromEntries(Object.entries(this.versions(arn)).map(([id, version]) => [id, [...version.stages]]));
  }

  /** The version holding a label, if any. */
  versionWith(arn: string, stage: string): string | undefined {
    return Object.entries(this.versions(arn)).find(([, version]) => version.stages.includes(stage))?.[0];
  }

  valueOf(arn: string, stage = current): string | null {
    const id = this.versionWith(arn, stage);
    return id === undefined ? null : (this.versions(arn)[id]?.value ?? null);
  }

  /** Puts a label on a version, taking it off any other; AWSCURRENT leaving a version leaves AWSPREVIOUS there. */
  private label(arn: string, stage: string, versionId: string): void {
    const versions = this.versions(arn);
    for (const [id, version] of Object.entries(versions)) {
      if (id === versionId || !version.stages.includes(stage)) continue;
      version.stages = version.stages.filter((each) => each !== stage);
      if (stage === current) this.label(arn, previous, id);
    }
    const target = versions[versionId];
    if (target && !target.stages.includes(stage)) target.stages.push(stage);
  }

  /**
   * What Secrets Manager does as a rotation starts: a version `versionId` labelled AWSPENDING, with
   * no value (or, when an operator staged one, that value).
   */
  startVersion(arn: string, versionId: string, value: string | null = null): void {
    const versions = this.versions(arn);
    versions[versionId] ??= { value, stages: [], createdAt: Date.now() };
    this.label(arn, pending, versionId);
    this.save();
  }

  /** Removes a version (the one a configuration test or a failed rotation made), unless it became current. */
  removeVersion(arn: string, versionId: string): void {
    const versions = this.versions(arn);
    if (versions[versionId]?.stages.includes(current)) return;
    delete versions[versionId];
    this.save();
  }

  /** One call of the Secrets Manager API (X-Amz-Target `secretsmanager.<operation>`): its answer's body. */
  handle(operation: string, body: unknown): Record<string, unknown> {
    const parsed = request.safeParse(body);
    if (!parsed.success) throw new SecretsManagerError('InvalidParameterException', 'The request is not valid.');
    const input = parsed.data;
    const arn = this.arnOf(input.SecretId);
    const name =
      arn
        .split(':')
        .pop()
        ?.replace(/-[A-Za-z0-9]{6}$/, '') ?? arn;
    const versions = this.versions(arn);
    switch (operation) {
      case 'GetSecretValue': {
        const versionId = input.VersionId ?? this.versionWith(arn, input.VersionStage ?? current);
        const version = versionId === undefined ? undefined : versions[versionId];
        if (versionId === undefined || version === undefined || version.value === null)
          throw new SecretsManagerError(
            'ResourceNotFoundException',
            `Secrets Manager can't find the specified secret value for ${input.VersionId ? `VersionId: ${input.VersionId}` : `staging label: ${input.VersionStage ?? current}`}`,
          );
        return {
          ARN: arn,
          Name: name,
          VersionId: versionId,
          SecretString: version.value,
          VersionStages: version.stages,
          CreatedDate: version.createdAt / 1000,
        };
      }
      case 'DescribeSecret':
        return { ARN: arn, Name: name, VersionIdsToStages: this.stagesOf(arn) };
      case 'PutSecretValue': {
        if (input.SecretString === undefined)
          throw new SecretsManagerError('InvalidParameterException', 'You must provide SecretString.');
        const versionId = input.ClientRequestToken ?? randomUUID();
        const existing = versions[versionId];
        if (existing?.value !== undefined && existing.value !== null && existing.value !== input.SecretString)
          throw new SecretsManagerError(
            'ResourceExistsException',
            `A version with VersionId ${versionId} already exists with a different value.`,
          );
        versions[versionId] = { value: input.SecretString, stages: existing?.stages ?? [], createdAt: Date.now() };
        for (const stage of input.VersionStages ?? [current]) this.label(arn, stage, versionId);
        this.save();
        return { ARN: arn, Name: name, VersionId: versionId, VersionStages: versions[versionId]?.stages ?? [] };
      }
      case 'UpdateSecretVersionStage': {
        const stage = input.VersionStage;
        if (stage === undefined)
          throw new SecretsManagerError('InvalidParameterException', 'You must provide VersionStage.');
        const holder = this.versionWith(arn, stage);
        if (input.MoveToVersionId !== undefined) {
          if (!versions[input.MoveToVersionId])
            throw new SecretsManagerError('ResourceNotFoundException', `No version ${input.MoveToVersionId}.`);
          if (holder !== undefined && holder !== input.MoveToVersionId && holder !== input.RemoveFromVersionId)
            throw new SecretsManagerError(
              'InvalidParameterException',
              `The staging label ${stage} is currently attached to version ${holder}, so you must explicitly reference that version in RemoveFromVersionId.`,
            );
          this.label(arn, stage, input.MoveToVersionId);
        } else if (input.RemoveFromVersionId !== undefined) {
          const version = versions[input.RemoveFromVersionId];
          if (version) version.stages = version.stages.filter((each) => each !== stage);
        }
        this.save();
        return { ARN: arn, Name: name };
      }
      default:
        throw new SecretsManagerError('InvalidRequestException', `${operation} is not served locally`);
    }
  }
}
