/**
 * SQS calls through the JSON protocol directly (shared/adapters/sqs/json-protocol.ts says why), as
 * a smithy client all the same: middleware written for SDK clients (X-Ray capture, the cost bench's
 * meter) sees each call as the SDK's SQS client would make it (`SendMessageBatchCommand`, ...), with
 * the same input and output shapes. The ingest queue's sender and the local event-source poller use
 * it; everything else uses the SDK.
 */
import { Client } from '@smithy/core/client';
import type { MetadataBearer, MiddlewareStack } from '@smithy/types';
import * as z from 'zod';
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

/** Any action's answer: an object of its fields, which the SDK's command types describe to their callers. */
const anAnswer = z.record(z.string(), z.unknown());

/** Where a call's input carries the time it is given up at (ms since the epoch). */
export const answerByKey = Symbol('answerBy');

type Input = { QueueUrl: string; [answerByKey]?: number } & Record<string, unknown>;
type Output = MetadataBearer & Record<string, unknown>;
type Stack = MiddlewareStack<Input, Output>;

interface ClientConfig {
  requestHandler: never;
  apiVersion: string;
  cacheMiddleware: boolean;
  /** Where and as whom each call goes. */
  access: () => SqsAccess;
}

/**
 * One action's call, shaped as a smithy command: the client's middleware runs around it. Its
 * handler (the client's middleware, then the call) is resolved once per action and client, as the
 * SDK's `cacheMiddleware` option does, and reused for every call: resolving a middleware stack
 * costs more CPU than signing and sending the call. So it reads everything from its input and the
 * client: how long the call may take by design is SQS's own long poll (`WaitTimeSeconds`), and
 * when the caller gives it up is its input's `answerByKey` (a symbol: never sent to SQS).
 * Middleware is added to the client before its first call (the cost bench's meter is).
 */
abstract class SqsAction {
  abstract readonly action: string;

  constructor(readonly input: Input) {}

  resolveMiddleware(clientStack: Stack, config: ClientConfig) {
    const action = this.action;
    return clientStack.resolve(
      async (args: { input: Input }) => {
        const { QueueUrl, [answerByKey]: answerBy, ...rest } = args.input;
        const waitMs = Number(rest.WaitTimeSeconds ?? 0) * 1000;
        const answer = await callSqs(
          config.access(),
          QueueUrl,
          { action, input: rest, answer: anAnswer },
          waitMs,
          answerBy,
        );
        return { output: { ...answer, $metadata: {} }, response: {} };
      },
      { clientName: 'SQSClient', commandName: `${action}Command` },
    );
  }
}

/** A command class per action: the client keeps one resolved handler per class. */
const actions = new Map<string, new (input: Input) => SqsAction>();
function actionClass(action: string): new (input: Input) => SqsAction {
  let command = actions.get(action);
  if (!command) {
    command = class extends SqsAction {
      readonly action = action;
    };
    actions.set(action, command);
  }
  return command;
}

/** A client with nothing in its middleware stack but what others add to it. */
export class SqsJsonClient extends Client<object, Input, Output, ClientConfig> {
  /** Without an access, the environment's at each call (where Lambda puts the execution role's). */
  constructor(access: SqsAccess | null = null) {
    super({
      requestHandler: undefined as never,
      apiVersion: '2012-11-05',
      cacheMiddleware: true,
      access: () => access ?? accessFromEnvironment(),
    });
  }

  /** Calls `action` on the input's queue (a ReceiveMessage's WaitTimeSeconds is how long it may take). */
  call<T>(action: string, input: Input): Promise<T> {
    const Command = actionClass(action);
    return this.send(new Command(input) as never) as Promise<T>;
  }

  /** Sends the entries; `answerBy` (ms since the epoch): the call is given up unanswered then. */
  async sendBatch(input: SendMessageBatchInput, answerBy?: number): Promise<SendMessageBatchOutput> {
    const answer = await this.call<Partial<SendMessageBatchOutput>>('SendMessageBatch', {
      ...input,
      ...(answerBy === undefined ? {} : { [answerByKey]: answerBy }),
    });
    return { Successful: answer.Successful ?? [], Failed: answer.Failed ?? [], $metadata: {} };
  }
}
