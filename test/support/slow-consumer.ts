/**
 * A queue consumer for the tests of function timeouts: the first time it meets a body starting with
 * `slow` it takes two seconds before it goes on; for each record it then copies the body to the
 * queue ECHO_QUEUE_URL names (SQS's JSON protocol, a network call) and notes it in the file
 * SLOW_CONSUMER_LOG names.
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const log = process.env.SLOW_CONSUMER_LOG as string;
  for (const record of event.Records) {
    const slowed = `${log}.${record.body}`;
    if (record.body.startsWith('slow') && !existsSync(slowed)) {
      writeFileSync(slowed, '');
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const response = await fetch(process.env.AWS_ENDPOINT_URL_SQS as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({ QueueUrl: process.env.ECHO_QUEUE_URL, MessageBody: record.body }),
    });
    if (!response.ok) throw new Error(`the echo was refused: ${response.status}`);
    appendFileSync(log, `${record.body}\n`);
  }
  return { batchItemFailures: [] };
}
