/**
 * A queue consumer for the tests of the local runtime's function threads: it notes each body it
 * handles in the file CRASHING_CONSUMER_LOG names, and the first time it meets a body starting with
 * `crash` its thread dies of an uncaught error, holding that record (as a Lambda invocation that
 * crashes holds its batch).
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const log = process.env.CRASHING_CONSUMER_LOG as string;
  for (const record of event.Records) {
    const crashed = `${log}.${record.body}`;
    if (record.body.startsWith('crash') && !existsSync(crashed)) {
      writeFileSync(crashed, '');
      setImmediate(() => {
        throw new Error('the consumer failed');
      });
      return new Promise(() => undefined);
    }
    appendFileSync(log, `${record.body}\n`);
  }
  return { batchItemFailures: [] };
}
