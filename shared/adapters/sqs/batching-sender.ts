/**
 * Sends queue messages with as few SQS calls as the load allows, without ever delaying one:
 * an idle sender sends a message at once; while `maxInFlight` calls are already under way, new
 * messages wait for the next free call and go together (SendMessageBatch, up to 10 entries and
 * 256 KiB). Each caller's promise settles with its own entry's result, so a caller that answers
 * 202 after `send` resolves still answers only once SQS holds its message.
 *
 * A Lambda instance handles one request at a time, so there every call carries one message; a
 * process serving many requests at once (the local front) makes several per call, which is what
 * keeps the SDK's per-call cost from capping ingest throughput.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

const maxEntries = 10;
const maxBatchBytes = 256 * 1024;

interface Pending {
  body: string;
  bytes: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class BatchingSender {
  private readonly pending: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: () => string,
    private readonly maxInFlight = 8,
  ) {}

  send(body: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ body, bytes: Buffer.byteLength(body), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.pending.length > 0) {
      const batch: Pending[] = [];
      let bytes = 0;
      while (batch.length < maxEntries && this.pending.length > 0) {
        const next = this.pending[0] as Pending;
        if (batch.length > 0 && bytes + next.bytes > maxBatchBytes) break;
        batch.push(next);
        bytes += next.bytes;
        this.pending.shift();
      }
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const result = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl(),
          Entries: batch.map((item, index) => ({ Id: String(index), MessageBody: item.body })),
        }),
      );
      const failed = new Map((result.Failed ?? []).map((failure) => [failure.Id, failure]));
      batch.forEach((item, index) => {
        const failure = failed.get(String(index));
        if (failure) item.reject(new Error(`SQS refused the message: ${failure.Code} ${failure.Message ?? ''}`.trim()));
        else item.resolve();
      });
    } catch (error) {
      for (const item of batch) item.reject(error as Error);
    }
  }
}
