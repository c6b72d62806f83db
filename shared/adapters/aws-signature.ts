/**
 * AWS Signature Version 4 for the one request shape AWS's JSON protocols use: a POST to `/`, no query
 * string, a JSON body and an `x-amz-target` naming the operation. The SDK signs any request, at a
 * few hundred microseconds of CPU each; this signs this one in a few dozen, which is what the
 * ingest function's single queue call per webhook needs (shared/adapters/sqs/json-protocol.ts).
 */
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface JsonPost {
  /** The Host header as sent: the host, and the port when it is not the scheme's default. */
  host: string;
  region: string;
  service: string;
  /** `x-amz-target`, e.g. AmazonSQS.SendMessageBatch. */
  target: string;
  contentType: string;
  body: string;
}

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The day's signing key, derived once per day, region, service and secret. */
let lastKey: { id: string; key: Buffer } | undefined;
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${day}/${region}/${service}/${secret}`;
  if (lastKey?.id !== id) {
    lastKey = { id, key: hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request') };
  }
  return lastKey.key;
}

/** The request's headers, signed: everything to send besides Content-Length. */
export function signJsonPost(request: JsonPost, credentials: AwsCredentials, now = new Date()): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': request.contentType,
    host: request.host,
    'x-amz-date': amzDate,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
    'x-amz-target': request.target,
  };
  // Already lowercase and in order; values carry no spaces to trim.
  const names = Object.keys(headers);
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    'POST',
    '/',
    '',
    ...names.map((name) => `${name}:${headers[name]}`),
    '',
    signedHeaders,
    hex(request.body),
  ].join('\n');
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonicalRequest)].join('\n');
  const key = signingKey(credentials.secretAccessKey, day, request.region, request.service);
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
