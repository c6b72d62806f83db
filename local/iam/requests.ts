/**
 * What an AWS request asks IAM for: the caller's access key, and each action with its resource and
 * the condition keys a policy may test, as the service's authorisation reference lists them
 * ("Actions, resources, and condition keys" in the Service Authorization Reference):
 *  - DynamoDB (JSON 1.0, X-Amz-Target `DynamoDB_20120810.<Operation>`): the operation on the table
 *    (or `table/<name>/index/<index>` for a query of an index); a batch or transaction asks for
 *    each of its items' own actions (TransactWriteItems: PutItem, UpdateItem, DeleteItem,
 *    ConditionCheckItem per item), with dynamodb:LeadingKeys (the partition key values) and
 *    dynamodb:Attributes (the key and updated attribute names) for single-item writes;
 *  - S3 (REST, path-style addresses): the method and query give the action (GetObject for GET and
 *    HEAD of an object, ListBucket for a bucket's, PutObject for a PUT or a multipart upload's
 *    steps, DeleteObject for a DELETE and each key of a multi-object delete), the path the bucket
 *    or object ARN;
 *  - SQS (JSON 1.0, X-Amz-Target `AmazonSQS.<Action>`): the action on the queue its QueueUrl (or
 *    QueueName) names; a batch asks for its single action (SendMessageBatch: sqs:SendMessage);
 *  - Secrets Manager (JSON 1.1, X-Amz-Target `secretsmanager.<Action>`): the action on SecretId;
 *  - STS (query protocol): AssumeRole on the role RoleArn names, with sts:ExternalId and the role's
 *    tags as iam:ResourceTag (the role's trust policy is the resource policy it is evaluated against).
 */
import type { IncomingMessage } from 'node:http';

export type Service = 'dynamodb' | 's3' | 'sqs' | 'secretsmanager' | 'sts';

export interface AskedAction {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

const account = '000000000000';
const region = 'us-east-1';

/** The access key a request is signed with (header or presigned query), or null for an unsigned one. */
export function accessKeyOf(request: Pick<IncomingMessage, 'headers' | 'url'>): string | null {
  const header = request.headers.authorization;
  const fromHeader = header ? /Credential=([^/,\s]+)\//.exec(header)?.[1] : undefined;
  if (fromHeader) return fromHeader;
  const query = request.url?.includes('?') ? new URL(request.url, 'http://local').searchParams : null;
  const credential = query?.get('X-Amz-Credential') ?? query?.get('AWSAccessKeyId');
  return credential ? (credential.split('/')[0] ?? null) : null;
}

type Body = Record<string, unknown>;
type AttributeMap = Record<string, Record<string, unknown>>;

const tableArn = (name: string) => `arn:aws:dynamodb:${region}:${account}:table/${name}`;

function scalar(value: Record<string, unknown> | undefined): string | undefined {
  if (!value) return undefined;
  const [type] = Object.keys(value);
  return type === 'S' || type === 'N' || type === 'B' ? String(value[type]) : undefined;
}

/** `#name` placeholders replaced, and the top-level attribute names an update expression sets or removes. */
function updatedNames(expression: string | undefined, names: Record<string, string> = {}): string[] {
  if (!expression) return [];
  const found = new Set<string>();
  // Each clause's paths: SET a = …, b = …; REMOVE c, d; ADD e :v; DELETE f :v.
  for (const clause of expression.split(/\b(?=SET|REMOVE|ADD|DELETE)\b/i)) {
    const body = clause.replace(/^\s*(SET|REMOVE|ADD|DELETE)\s+/i, '');
    for (const part of body.split(',')) {
      const path = part.trim().split(/[\s=]/)[0] ?? '';
      const top = path.split(/[.[]/)[0] ?? '';
      if (!top || top.startsWith(':')) continue;
      found.add(top.startsWith('#') ? (names[top] ?? top) : top);
    }
  }
  return [...found];
}

/** The context keys of one item's request: its partition key value and attribute names. */
function itemContext(
  keyNames: { partition: string },
  key: AttributeMap | undefined,
  attributes: string[],
): Record<string, string | string[]> {
  const partition = scalar(key?.[keyNames.partition]);
  return {
    ...(partition === undefined ? {} : { 'dynamodb:LeadingKeys': [partition] }),
    'dynamodb:Attributes': [...new Set([...Object.keys(key ?? {}), ...attributes])],
  };
}

function dynamodb(operation: string, body: Body, keys: { partition: string }): AskedAction[] {
  const item = (action: string, table: string, key: AttributeMap | undefined, attributes: string[] = []) => ({
    action: `dynamodb:${action}`,
    resource: tableArn(table),
    context: itemContext(keys, key, attributes),
  });
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
      return [item(operation, String(body.TableName), body.Key as AttributeMap)];
    case 'PutItem': {
      const written = body.Item as AttributeMap;
      return [item(operation, String(body.TableName), written, Object.keys(written ?? {}))];
    }
    case 'UpdateItem':
      return [
        item(
          operation,
          String(body.TableName),
          body.Key as AttributeMap,
          updatedNames(body.UpdateExpression as string, body.ExpressionAttributeNames as Record<string, string>),
        ),
      ];
    case 'Query':
    case 'Scan': {
      const index = body.IndexName ? `/index/${String(body.IndexName)}` : '';
      return [
        { action: `dynamodb:${operation}`, resource: `${tableArn(String(body.TableName))}${index}`, context: {} },
      ];
    }
    case 'BatchGetItem':
      return Object.keys((body.RequestItems ?? {}) as Body).map((table) => ({
        action: 'dynamodb:BatchGetItem',
        resource: tableArn(table),
        context: {},
      }));
    case 'BatchWriteItem':
      return Object.keys((body.RequestItems ?? {}) as Body).map((table) => ({
        action: 'dynamodb:BatchWriteItem',
        resource: tableArn(table),
        context: {},
      }));
    case 'TransactWriteItems':
      return ((body.TransactItems ?? []) as Record<string, Body>[]).flatMap((entry) => {
        const [kind, request] = Object.entries(entry)[0] ?? [];
        if (!kind || !request) return [];
        const table = String(request.TableName);
        if (kind === 'Put')
          return [item('PutItem', table, request.Item as AttributeMap, Object.keys(request.Item ?? {}))];
        if (kind === 'Update')
          return [
            item(
              'UpdateItem',
              table,
              request.Key as AttributeMap,
              updatedNames(
                request.UpdateExpression as string,
                request.ExpressionAttributeNames as Record<string, string>,
              ),
            ),
          ];
        if (kind === 'Delete') return [item('DeleteItem', table, request.Key as AttributeMap)];
        return [item('ConditionCheckItem', table, request.Key as AttributeMap)];
      });
    case 'TransactGetItems':
      return ((body.TransactItems ?? []) as Record<string, Body>[]).map((entry) =>
        item('GetItem', String(entry.Get?.TableName), entry.Get?.Key as AttributeMap),
      );
    default:
      // DescribeTable, ListTables, …: the table, where the request names one.
      return [
        {
          action: `dynamodb:${operation}`,
          resource: body.TableName ? tableArn(String(body.TableName)) : '*',
          context: {},
        },
      ];
  }
}

const queueArn = (name: string) => `arn:aws:sqs:${region}:${account}:${name}`;

function sqs(operation: string, body: Body): AskedAction[] {
  const name = body.QueueUrl
    ? (String(body.QueueUrl).split('?')[0]?.split('/').filter(Boolean).pop() ?? '')
    : String(body.QueueName ?? '');
  const action = operation.endsWith('Batch') ? operation.slice(0, -'Batch'.length) : operation;
  if (operation === 'ListQueues') return [{ action: 'sqs:ListQueues', resource: '*', context: {} }];
  return [{ action: `sqs:${action}`, resource: queueArn(name), context: {} }];
}

function secretsManager(operation: string, body: Body, arnOf: (id: string) => string): AskedAction[] {
  return [{ action: `secretsmanager:${operation}`, resource: arnOf(String(body.SecretId ?? '')), context: {} }];
}

/** An S3 request's actions; a multi-object delete's keys come from its body (`keys`). */
export function s3Actions(method: string, url: string, deletedKeys: string[] = [], copySource?: string): AskedAction[] {
  const parsed = new URL(url, 'http://local');
  const [bucket = '', ...rest] = parsed.pathname.slice(1).split('/');
  const key = rest.map((part) => decodeURIComponent(part)).join('/');
  const query = parsed.searchParams;
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const objectArn = `${bucketArn}/${key}`;
  const one = (action: string, resource: string) => [{ action: `s3:${action}`, resource, context: {} }];
  if (!key) {
    if (method === 'POST' && query.has('delete'))
      return deletedKeys.map((deleted) => ({
        action: 's3:DeleteObject',
        resource: `${bucketArn}/${deleted}`,
        context: {},
      }));
    if (query.has('location')) return one('GetBucketLocation', bucketArn);
    if (query.has('uploads')) return one('ListBucketMultipartUploads', bucketArn);
    if (query.has('versions')) return one('ListBucketVersions', bucketArn);
    if (method === 'GET' || method === 'HEAD') return one('ListBucket', bucketArn);
    if (method === 'PUT') return one('CreateBucket', bucketArn);
    if (method === 'DELETE') return one('DeleteBucket', bucketArn);
    return one(`${method}Bucket`, bucketArn);
  }
  if (method === 'GET' || method === 'HEAD')
    return query.has('uploadId') ? one('ListMultipartUploadParts', objectArn) : one('GetObject', objectArn);
  if (method === 'DELETE')
    return query.has('uploadId') ? one('AbortMultipartUpload', objectArn) : one('DeleteObject', objectArn);
  // PUT (an object, a part, a copy) and POST (a multipart upload's start and end): s3:PutObject; a
  // copy also reads its source (x-amz-copy-source: /bucket/key).
  const source = copySource
    ? one('GetObject', `arn:aws:s3:::${decodeURIComponent(copySource.replace(/^\//, '').split('?')[0] ?? '')}`)
    : [];
  return [...one('PutObject', objectArn), ...source];
}

/** The actions of a JSON-protocol request (DynamoDB, SQS, Secrets Manager) from its target and body. */
export function jsonActions(
  service: Exclude<Service, 's3' | 'sts'>,
  target: string,
  body: Body,
  options: { partitionKey: string; secretArn: (id: string) => string },
): AskedAction[] {
  const operation = target.split('.').pop() ?? '';
  if (service === 'dynamodb') return dynamodb(operation, body, { partition: options.partitionKey });
  if (service === 'sqs') return sqs(operation, body);
  return secretsManager(operation, body, options.secretArn);
}

/** STS's AssumeRole, from its form body; any other STS action asks for itself on `*`. */
export function stsActions(
  body: URLSearchParams,
  roleTags: (roleArn: string) => Record<string, string>,
): AskedAction[] {
  const action = body.get('Action') ?? '';
  if (action !== 'AssumeRole') return [{ action: `sts:${action}`, resource: '*', context: {} }];
  const roleArn = body.get('RoleArn') ?? '';
  const externalId = body.get('ExternalId');
  return [
    {
      action: 'sts:AssumeRole',
      resource: roleArn,
      context: {
        ...(externalId ? { 'sts:ExternalId': externalId } : {}),
        ...Object.fromEntries(
          Object.entries(roleTags(roleArn)).map(([tag, value]) => [`iam:ResourceTag/${tag}`, value]),
        ),
      },
    },
  ];
}
