/**
 * What local mode's authorising proxy asks IAM for each request, against the actions and resources
 * the Service Authorization Reference lists for it, written out here.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { accessKeyOf, jsonActions, s3Actions } from '../../local/iam/requests.ts';

const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/tributary';
const options = {
  partitionKey: 'pk',
  secretArn: (id: string) => `arn:aws:secretsmanager:us-east-1:000000000000:secret:${id}`,
};
const actionsOf = (asked: { action: string; resource: string }[]) =>
  asked.map(({ action, resource }) => [action, resource]);

describe('the IAM request of an AWS call', () => {
  it('reads the access key from a SigV4 header or a presigned URL, and none from an unsigned request', () => {
    const request = (headers: Record<string, string>, url = '/') => ({ headers, url }) as unknown as IncomingMessage;
    expect(
      accessKeyOf(
        request({
          authorization:
            'AWS4-HMAC-SHA256 Credential=LOCALwriter/20261126/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=abc',
        }),
      ),
    ).toBe('LOCALwriter');
    expect(
      accessKeyOf(request({}, '/b/k?X-Amz-Credential=LOCALfiles%2F20261126%2Fus-east-1%2Fs3%2Faws4_request')),
    ).toBe('LOCALfiles');
    expect(accessKeyOf(request({}, '/b/k'))).toBeNull();
  });

  it('maps S3 requests to their actions and ARNs', () => {
    const cases: [string, string, string[][]][] = [
      ['GET', '/demo/a/b.parquet', [['s3:GetObject', 'arn:aws:s3:::demo/a/b.parquet']]],
      ['HEAD', '/demo/a%20b', [['s3:GetObject', 'arn:aws:s3:::demo/a b']]],
      ['GET', '/demo?list-type=2&prefix=a/', [['s3:ListBucket', 'arn:aws:s3:::demo']]],
      ['HEAD', '/demo', [['s3:ListBucket', 'arn:aws:s3:::demo']]],
      ['PUT', '/demo/k', [['s3:PutObject', 'arn:aws:s3:::demo/k']]],
      ['POST', '/demo/k?uploads', [['s3:PutObject', 'arn:aws:s3:::demo/k']]],
      ['DELETE', '/demo/k', [['s3:DeleteObject', 'arn:aws:s3:::demo/k']]],
      ['DELETE', '/demo/k?uploadId=1', [['s3:AbortMultipartUpload', 'arn:aws:s3:::demo/k']]],
    ];
    for (const [method, url, expected] of cases) expect(actionsOf(s3Actions(method, url))).toEqual(expected);
    expect(actionsOf(s3Actions('POST', '/demo?delete', ['a', 'b/c']))).toEqual([
      ['s3:DeleteObject', 'arn:aws:s3:::demo/a'],
      ['s3:DeleteObject', 'arn:aws:s3:::demo/b/c'],
    ]);
    expect(actionsOf(s3Actions('PUT', '/demo/copy', [], '/other/source%20key'))).toEqual([
      ['s3:PutObject', 'arn:aws:s3:::demo/copy'],
      ['s3:GetObject', 'arn:aws:s3:::other/source key'],
    ]);
  });

  it('maps DynamoDB operations to each item’s action, with the partition keys and attribute names they touch', () => {
    expect(
      jsonActions(
        'dynamodb',
        'DynamoDB_20120810.UpdateItem',
        {
          TableName: 'tributary',
          Key: { pk: { S: 'APIKEY#abc' }, sk: { S: 'KEY' } },
          UpdateExpression: 'SET #used = :now',
          ExpressionAttributeNames: { '#used': 'last_used_at' },
        },
        options,
      ),
    ).toEqual([
      {
        action: 'dynamodb:UpdateItem',
        resource: table,
        context: { 'dynamodb:LeadingKeys': ['APIKEY#abc'], 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      },
    ]);
    expect(
      actionsOf(
        jsonActions('dynamodb', 'DynamoDB_20120810.Query', { TableName: 'tributary', IndexName: 'gsi1' }, options),
      ),
    ).toEqual([['dynamodb:Query', `${table}/index/gsi1`]]);
    expect(
      actionsOf(
        jsonActions(
          'dynamodb',
          'DynamoDB_20120810.TransactWriteItems',
          {
            TransactItems: [
              { Put: { TableName: 'tributary', Item: { pk: { S: 'a' } } } },
              { Delete: { TableName: 'tributary', Key: { pk: { S: 'b' } } } },
              { ConditionCheck: { TableName: 'tributary', Key: { pk: { S: 'c' } } } },
            ],
          },
          options,
        ),
      ),
    ).toEqual([
      ['dynamodb:PutItem', table],
      ['dynamodb:DeleteItem', table],
      ['dynamodb:ConditionCheckItem', table],
    ]);
  });

  it('maps SQS and Secrets Manager actions to the queue and the secret they name', () => {
    const queue = 'arn:aws:sqs:us-east-1:000000000000:ingest';
    expect(
      actionsOf(
        jsonActions(
          'sqs',
          'AmazonSQS.SendMessageBatch',
          { QueueUrl: 'http://127.0.0.1:1/000000000000/ingest' },
          options,
        ),
      ),
    ).toEqual([['sqs:SendMessage', queue]]);
    expect(actionsOf(jsonActions('sqs', 'AmazonSQS.GetQueueUrl', { QueueName: 'ingest' }, options))).toEqual([
      ['sqs:GetQueueUrl', queue],
    ]);
    expect(
      actionsOf(jsonActions('secretsmanager', 'secretsmanager.GetSecretValue', { SecretId: 'key' }, options)),
    ).toEqual([['secretsmanager:GetSecretValue', 'arn:aws:secretsmanager:us-east-1:000000000000:secret:key']]);
  });
});
