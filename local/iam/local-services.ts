/**
 * The two AWS services local mode serves itself, for the calls functions make to them:
 *  - Secrets Manager, for the secrets the deployment names, by version (local/deploy/secrets-manager.ts:
 *    GetSecretValue, DescribeSecret, PutSecretValue, UpdateSecretVersionStage);
 *  - STS's AssumeRole: a session of the role, whose credentials' token carries the role and the
 *    session policy it was assumed with (local/iam/enforcement.ts reads it to evaluate the session's
 *    calls against the role's policies and that policy).
 * Whether the caller may make the call was decided before it left the caller's thread
 * (local/iam/enforcement.ts); these answer what AWS answers once it is allowed.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PolicyDocument } from '../cloud-assembly.ts';
import { type LocalSecretsManager, SecretsManagerError } from '../deploy/secrets-manager.ts';
import { sessionToken } from './enforcement.ts';
import { localAccount } from './policy-evaluator.ts';

export interface LocalServices {
  endpoints: { secretsmanager: string; sts: string };
  close(): Promise<void>;
}

function serveSecret(secrets: LocalSecretsManager, request: IncomingMessage, body: string, response: ServerResponse) {
  const operation = String(request.headers['x-amz-target'] ?? '')
    .split('.')
    .pop();
  const answer = (status: number, content: object) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
    response.end(JSON.stringify(content));
  };
  try {
    let input: unknown = {};
    try {
      input = JSON.parse(body);
    } catch {
      // Refused below as a request that is not valid.
    }
    answer(200, secrets.handle(operation ?? '', input));
  } catch (error) {
    if (error instanceof SecretsManagerError) answer(400, { __type: error.type, Message: error.message });
    else answer(500, { __type: 'InternalServiceError', Message: 'An error occurred on the server side.' });
  }
}

function assumeRole(roles: Set<string>, body: URLSearchParams, response: ServerResponse) {
  const requestId = randomUUID();
  const xml = (status: number, content: string) => {
    response.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
    response.end(`<?xml version="1.0" encoding="UTF-8"?>\n${content}`);
  };
  const error = (status: number, code: string, message: string) =>
    xml(
      status,
      `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
    );
  if (body.get('Action') !== 'AssumeRole')
    return error(400, 'InvalidAction', `${body.get('Action')} is not served locally`);
  const roleArn = body.get('RoleArn') ?? '';
  if (!roles.has(roleArn)) return error(403, 'AccessDenied', `Not authorized to perform sts:AssumeRole on ${roleArn}`);
  const sessionName = body.get('RoleSessionName') ?? 'session';
  const policy = body.get('Policy');
  const token = sessionToken({
    functionName: sessionName,
    roleArn,
    ...(policy ? { sessionPolicy: JSON.parse(policy) as PolicyDocument } : {}),
  });
  const accessKeyId = `ASIA${randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase()}`;
  const seconds = Number(body.get('DurationSeconds') ?? 3600);
  const session = `arn:aws:sts::${localAccount}:assumed-role/${roleArn.split('/').pop()}/${sessionName}`;
  xml(
    200,
    `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>${accessKeyId}</AccessKeyId><SecretAccessKey>local</SecretAccessKey><SessionToken>${token}</SessionToken><Expiration>${new Date(Date.now() + seconds * 1000).toISOString()}</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>AROALOCAL:${sessionName}</AssumedRoleId><Arn>${session}</Arn></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
  );
}

export async function startLocalServices(setup: {
  /** The deployment's secrets. */
  secrets: LocalSecretsManager;
  /** The roles a session may be assumed of, by ARN. */
  roleArns: string[];
}): Promise<LocalServices> {
  const roles = new Set(setup.roleArns);
  const withBody = (serve: (request: IncomingMessage, body: string, response: ServerResponse) => void) =>
    http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => serve(request, Buffer.concat(chunks).toString('utf8'), response));
    });
  const servers = [
    withBody((request, body, response) => serveSecret(setup.secrets, request, body, response)),
    withBody((_, body, response) => assumeRole(roles, new URLSearchParams(body), response)),
  ];
  const [secretsmanager, sts] = await Promise.all(
    servers.map(
      (server) =>
        new Promise<string>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
        }),
    ),
  );
  return {
    endpoints: { secretsmanager: secretsmanager as string, sts: sts as string },
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
