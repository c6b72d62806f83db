/**
 * Sends queue messages with as few SQS calls as the load allows, without ever delaying one:
 * an idle sender sends a message at once; while `maxInFlight` calls are already under way, new
 * messages wait for the next free call and go together (SendMessageBatch, up to 10 entries and
 * 256 KiB). Each caller's promise settles with its own entry's result, so a caller that answers
 * 202 after `send` resolves still answers only once SQS holds its message.
 *
 * A caller may give a deadline: a message still waiting for a call then is dropped, and its
 * promise rejects with NotSent; a message already in a call is never dropped, its call's answer
 * settles it. So a caller that refuses its request on NotSent refuses only what SQS never got. A
 * caller may also say when it must have its answer: a call is given up (its attempts cut short,
 * shared/adapters/sqs/json-protocol.ts) at the earliest such time of the messages it carries, and
 * rejects them with the call's error, their outcome unknown; no caller waits past its own.
 *
 * A Lambda instance handles one request at a time, so there every call carries one message; a
 * process serving many requests at once (the local front) makes several per call, which is what
 * keeps the per-call cost from capping ingest throughput. Two calls at a time are enough there: a
 * queue that keeps its messages on disk answers a call once its next flush is done, so more calls
 * at once would each carry fewer messages to the same flush, at a call's cost each (measured on two
 * cores: at 8, 1,430 requests/s with p99 175 ms; at 2, 2,340 requests/s with p99 61 ms).
 */
import type { SqsJsonClient } from './json-client.ts';

const maxEntries = 10;
const maxBatchBytes = 256 * 1024;

/** The message waited past its deadline for a call and was never sent. */
export class NotSent extends Error {
  constructor() {
    super('The message was not sent before its deadline');
    this.name = 'NotSent';
  }
}

interface Pending {
  body: string;
  bytes: number;
  /** When its call must have answered (ms since the epoch). */
  answerBy: number;
  resolve: () => void;
  reject: (error: Error) => void;
  /** Taken into a call: settled by its answer from then on. */
  taken: boolean;
  timer?: NodeJS.Timeout;
}

export class BatchingSender {
  private readonly pending: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly sqs: Pick<SqsJsonClient, 'sendBatch'>,
    private readonly queueUrl: () => string,
    private readonly maxInFlight = 2,
  ) {}

  /**
   * Resolves once SQS holds the message; `sendBy` (ms since the epoch) is its deadline to be sent,
   * `answerBy` the time its call is given up.
   */
  send(body: string, sendBy = Number.POSITIVE_INFINITY, answerBy = Number.POSITIVE_INFINITY): Promise<void> {
    return new Promise((resolve, reject) => {
      if (Date.now() >= sendBy) {
        reject(new NotSent());
        return;
      }
      const entry: Pending = { body, bytes: Buffer.byteLength(body), answerBy, resolve, reject, taken: false };
      this.pending.push(entry);
      this.pump();
      // Still waiting for a call: it is dropped if none takes it in time.
      if (!entry.taken && Number.isFinite(sendBy)) {
        entry.timer = setTimeout(() => {
          const index = this.pending.indexOf(entry);
          if (index < 0) return;
          this.pending.splice(index, 1);
          reject(new NotSent());
        }, sendBy - Date.now());
      }
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.pending.length > 0) {
      const batch: Pending[] = [];
      let bytes = 0;
      while (batch.length < maxEntries && this.pending.length > 0) {
        const next = this.pending[0] as Pending;
        if (batch.length > 0 && bytes + next.bytes > maxBatchBytes) break;
        clearTimeout(next.timer);
        next.taken = true;
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
      const result = await this.sqs.sendBatch(
        {
          QueueUrl: this.queueUrl(),
          Entries: batch.map((item, index) => ({ Id: String(index), MessageBody: item.body })),
        },
        Math.min(...batch.map((item) => item.answerBy)),
      );
      const failed = new Map(result.Failed.map((failure) => [failure.Id, failure]));
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
