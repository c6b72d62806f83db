/**
 * The S3 stand-in's server: s3rver over the durable store (durable-store.ts), answering conditional
 * writes as S3 does (conditional-writes.ts). The stand-in's process (local/s3-stand-in.ts) runs it;
 * tests start it in their own process.
 */
import S3rver from 's3rver';
import Account from 's3rver/lib/models/account.js';
import { conditionalWrites } from './conditional-writes.ts';
import { DurableStore } from './durable-store.ts';

/**
 * Any access key is one of s3rver's own account, as DynamoDB Local and the SQS stand-in accept any:
 * local mode's functions sign with keys of their own, which local IAM (local/iam/enforcement.ts)
 * evaluates against their roles before a call leaves. s3rver checks no SigV4 signature either way.
 */
const knownKey = Account.registry.get.bind(Account.registry);
Account.registry.get = (accessKeyId: string) => knownKey(accessKeyId) ?? Account.DUMMY_ACCOUNT;

export function s3Server(options: { port: number; directory: string }): S3rver {
  const server = new S3rver({ port: options.port, address: '127.0.0.1', directory: options.directory, silent: true });
  const store = new DurableStore(options.directory);
  // s3rver reads its store from both places.
  Object.assign(server, { store });
  Object.assign((server as unknown as { context: object }).context, { store });
  // Koa runs middleware in order; s3rver's router is the last one and answers every S3 request, so
  // the conditions are put in context just before it (after s3rver's logging and XML rendering).
  const middleware = (server as unknown as { middleware: unknown[] }).middleware;
  middleware.splice(middleware.length - 1, 0, conditionalWrites);
  return server;
}
