/**
 * SQS's SendMessageBatch for the ingest queue, through the JSON protocol directly
 * (shared/adapters/sqs/json-protocol.ts says why): the ingest function's one call per webhook.
 * Its endpoint, region and credentials are the environment's, where Lambda puts the execution
 * role's. It is a smithy client call all the same: middleware written for SDK clients (X-Ray
 * capture, the cost bench's meter) sees it as SQS SendMessageBatch.
 */
import { Client, constructStack } from '@smithy/core/client';
import type { MetadataBearer, MiddlewareStack } from '@smithy/types';
import { accessFromEnvironment, callSqs } from './json-protocol.ts';

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

async function sendBatch(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
  const answer = await callSqs<Partial<SendMessageBatchOutput>>(
    accessFromEnvironment(),
    input.QueueUrl,
    'SendMessageBatch',
    {
      Entries: input.Entries,
    },
  );
  return { Successful: answer.Successful ?? [], Failed: answer.Failed ?? [], $metadata: {} };
}

type Stack = MiddlewareStack<SendMessageBatchInput, SendMessageBatchOutput>;

/** The command, shaped as smithy's: the client's middleware runs around the call. */
export class SendMessageBatch {
  readonly middlewareStack: Stack = constructStack<SendMessageBatchInput, SendMessageBatchOutput>();

  constructor(readonly input: SendMessageBatchInput) {}

  resolveMiddleware(clientStack: Stack) {
    return clientStack
      .concat(this.middlewareStack)
      .resolve(
        async (args: { input: SendMessageBatchInput }) => ({ output: await sendBatch(args.input), response: {} }),
        { clientName: 'SQSClient', commandName: 'SendMessageBatchCommand' },
      );
  }
}

/** A client with nothing in its middleware stack but what others add to it. */
export class SqsBatchClient extends Client<
  object,
  SendMessageBatchInput,
  SendMessageBatchOutput,
  { requestHandler: never; apiVersion: string; cacheMiddleware: boolean }
> {
  constructor() {
    super({ requestHandler: undefined as never, apiVersion: '2012-11-05', cacheMiddleware: true });
  }

  sendBatch(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
    return this.send(new SendMessageBatch(input) as never);
  }
}
