/**
 * SQS calls through the JSON protocol directly (shared/adapters/sqs/json-protocol.ts says why), as
 * a smithy client all the same: middleware written for SDK clients (X-Ray capture, the cost bench's
 * meter) sees each call as the SDK's SQS client would make it (`SendMessageBatchCommand`, ...), with
 * the same input and output shapes. The ingest queue's sender and the local event-source poller use
 * it; everything else uses the SDK.
 */
import { Client, constructStack } from '@smithy/core/client';
import type { MetadataBearer, MiddlewareStack } from '@smithy/types';
import { accessFromEnvironment, callSqs, type SqsAccess } from './json-protocol.ts';

export interface BatchEntry {
  Id: string;
  MessageBody: string;
}

export interface SendMessageBatchInput {
  QueueUrl: string;
  Entries: BatchEntry[];
}

export interface SendMessageBatchOutput extends MetadataBearer {
  Successful: { Id: string; MessageId: string }[];
  Failed: { Id: string; Code: string; Message?: string; SenderFault: boolean }[];
}

type Input = { QueueUrl: string } & Record<string, unknown>;
type Output = MetadataBearer & Record<string, unknown>;
type Stack = MiddlewareStack<Input, Output>;

/** One action, shaped as a smithy command: the client's middleware runs around the call. */
class SqsAction {
  readonly middlewareStack: Stack = constructStack<Input, Output>();

  constructor(
    readonly action: string,
    readonly input: Input,
    private readonly access: () => SqsAccess,
    private readonly waitMs: number,
  ) {}

  resolveMiddleware(clientStack: Stack) {
    return clientStack.concat(this.middlewareStack).resolve(
      async (args: { input: Input }) => {
        const { QueueUrl, ...rest } = args.input;
        const answer = await callSqs<Record<string, unknown>>(this.access(), QueueUrl, this.action, rest, this.waitMs);
        return { output: { ...answer, $metadata: {} }, response: {} };
      },
      { clientName: 'SQSClient', commandName: `${this.action}Command` },
    );
  }
}

/** A client with nothing in its middleware stack but what others add to it. */
export class SqsJsonClient extends Client<
  object,
  Input,
  Output,
  { requestHandler: never; apiVersion: string; cacheMiddleware: boolean }
> {
  /** Without an access, the environment's at each call (where Lambda puts the execution role's). */
  constructor(private readonly access: SqsAccess | null = null) {
    // Each action is a command of its own class, so no handler may be cached per class.
    super({ requestHandler: undefined as never, apiVersion: '2012-11-05', cacheMiddleware: false });
  }

  /** Calls `action` on the input's queue; `waitMs` is how long the call may take by design (a long poll). */
  call<T>(action: string, input: Input, waitMs = 0): Promise<T> {
    const command = new SqsAction(action, input, () => this.access ?? accessFromEnvironment(), waitMs);
    return this.send(command as never) as Promise<T>;
  }

  async sendBatch(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
    const answer = await this.call<Partial<SendMessageBatchOutput>>('SendMessageBatch', { ...input });
    return { Successful: answer.Successful ?? [], Failed: answer.Failed ?? [], $metadata: {} };
  }
}
