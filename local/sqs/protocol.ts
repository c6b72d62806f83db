/**
 * SQS's JSON protocol (`x-amz-target: AmazonSQS.<Action>`, `application/x-amz-json-1.0`), which the
 * AWS SDK for JavaScript v3 speaks, over the stand-in's queues. The actions are the ones Tributary,
 * its tests and its tools use; the older query (XML) protocol is refused with a clear error.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AttributeValue,
  accountId,
  type QueueService,
  type ReceivedMessage,
  type SendEntry,
  SqsError,
} from './queues.ts';

type Body = Record<string, unknown>;

const jsonType = 'application/x-amz-json-1.0';
/** The largest request body read: a batch of ten messages of 1 MiB at most, with room for JSON. */
const maxRequestBytes = 12 * 1024 * 1024;
/** Characters SQS accepts in a message body (the XML 1.0 character set). */
const invalidCharacters = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const invalid = (message: string) => new SqsError('InvalidParameterValue', message);
const missing = (name: string) =>
  new SqsError('MissingParameter', `The request must contain the parameter ${name}.`, 'MissingParameter');

function text(body: Body, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) throw missing(name);
  if (typeof value !== 'string') throw invalid(`${name} must be a string.`);
  return value;
}

function integer(body: Body, name: string, min: number, max: number): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw invalid(`Value ${String(value)} for parameter ${name} is invalid. Must be between ${min} and ${max}.`);
  return number;
}

function names(body: Body, name: string): string[] {
  const value = body[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw invalid(`${name} must be a list of strings.`);
  return value as string[];
}

function stringMap(body: Body, name: string): Record<string, string> {
  const value = body[name];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${name} must be a map.`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]));
}

/** The queue a QueueUrl names: its last path segment, whatever the host. */
function queueNameOf(body: Body): string {
  const url = text(body, 'QueueUrl');
  const name = url.split('?')[0]?.split('/').filter(Boolean).pop() ?? '';
  if (!name) throw new SqsError('InvalidAddress', `The address ${url} is not valid for this endpoint.`);
  return name;
}

function messageAttributes(value: unknown): Record<string, AttributeValue> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('MessageAttributes must be a map.');
  const attributes: Record<string, AttributeValue> = {};
  const entries = Object.entries(value as Record<string, Record<string, unknown>>);
  if (entries.length > 10) throw invalid('Number of message attributes [11] exceeds the allowed maximum [10].');
  for (const [name, attribute] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name) || name.startsWith('AWS.') || name.startsWith('Amazon.'))
      throw invalid(`Message attribute name '${name}' is invalid.`);
    const dataType = attribute?.DataType;
    if (typeof dataType !== 'string' || !/^(String|Number|Binary)(\..+)?$/.test(dataType))
      throw invalid(`The message attribute '${name}' has an invalid message attribute type.`);
    if (dataType.startsWith('Binary')) {
      if (typeof attribute.BinaryValue !== 'string')
        throw invalid(`The message attribute '${name}' must contain a non-empty message attribute value.`);
      attributes[name] = { DataType: dataType, BinaryValue: attribute.BinaryValue };
    } else {
      if (typeof attribute.StringValue !== 'string' || attribute.StringValue === '')
        throw invalid(`The message attribute '${name}' must contain a non-empty message attribute value.`);
      attributes[name] = { DataType: dataType, StringValue: attribute.StringValue };
    }
  }
  return attributes;
}

function sendEntry(body: Body, maxBytes: number): SendEntry {
  const messageBody = text(body, 'MessageBody');
  if (messageBody === '') throw missing('MessageBody');
  if (invalidCharacters.test(messageBody))
    throw new SqsError('InvalidMessageContents', 'Invalid characters found in the message body.');
  const attributes = messageAttributes(body.MessageAttributes);
  const bytes =
    Buffer.byteLength(messageBody) +
    Object.entries(attributes ?? {}).reduce(
      (sum, [name, value]) =>
        sum +
        Buffer.byteLength(name) +
        Buffer.byteLength(value.DataType) +
        Buffer.byteLength(value.StringValue ?? '') +
        Buffer.from(value.BinaryValue ?? '', 'base64').length,
      0,
    );
  if (bytes > maxBytes)
    throw invalid(`One or more parameters are invalid. Reason: Message must be shorter than ${maxBytes} bytes.`);
  return { body: messageBody, delaySeconds: integer(body, 'DelaySeconds', 0, 900), attributes };
}

function batchEntries(body: Body): Body[] {
  const entries = body.Entries;
  if (entries === undefined || entries === null) throw missing('Entries');
  if (!Array.isArray(entries) || entries.length === 0)
    throw new SqsError(
      'EmptyBatchRequest',
      'There should be at least one entry in the request.',
      'AWS.SimpleQueueService.EmptyBatchRequest',
    );
  if (entries.length > 10)
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are 10. You have sent ${entries.length}.`,
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    );
  const ids = new Set<string>();
  for (const entry of entries as Body[]) {
    const id = entry?.Id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(id))
      throw new SqsError(
        'InvalidBatchEntryId',
        'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
        'AWS.SimpleQueueService.InvalidBatchEntryId',
      );
    if (ids.has(id))
      throw new SqsError(
        'BatchEntryIdsNotDistinct',
        `Id ${id} repeated.`,
        'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
      );
    ids.add(id);
  }
  return entries as Body[];
}

function failedEntry(id: string, error: SqsError) {
  return { Id: id, Code: error.queryCode, Message: error.message, SenderFault: error.status < 500 };
}

/** What a received message carries, filtered to the attributes the caller asked for. */
function receivedShape(message: ReceivedMessage, systemNames: string[], attributeNames: string[]) {
  const system = systemNames.includes('All')
    ? message.systemAttributes
    : Object.fromEntries(
        systemNames
          .filter((name) => name in message.systemAttributes)
          .map((name) => [name, message.systemAttributes[name]]),
      );
  const wanted = (name: string) =>
    attributeNames.some(
      (pattern) =>
        pattern === 'All' ||
        pattern === '.*' ||
        pattern === name ||
        (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))),
    );
  const attributes = Object.fromEntries(Object.entries(message.attributes ?? {}).filter(([name]) => wanted(name)));
  const hasAttributes = Object.keys(attributes).length > 0;
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    MD5OfBody: message.bodyMd5,
    Body: message.body,
    ...(Object.keys(system).length > 0 ? { Attributes: system } : {}),
    ...(hasAttributes ? { MessageAttributes: attributes, MD5OfMessageAttributes: message.attributesMd5 } : {}),
  };
}

export function sqsRequestHandler(service: QueueService, baseUrl: () => string) {
  const urlOf = (name: string) => `${baseUrl()}/${accountId}/${name}`;
  const maxMessageBytes = (name: string) => service.setting(name, 'MaximumMessageSize');

  const actions: Record<string, (body: Body) => Promise<unknown> | unknown> = {
    async CreateQueue(body) {
      const name = text(body, 'QueueName');
      await service.createQueue(name, stringMap(body, 'Attributes'));
      return { QueueUrl: urlOf(name) };
    },
    GetQueueUrl(body) {
      const name = text(body, 'QueueName');
      if (!service.hasQueue(name))
        throw new SqsError(
          'QueueDoesNotExist',
          'The specified queue does not exist.',
          'AWS.SimpleQueueService.NonExistentQueue',
        );
      return { QueueUrl: urlOf(name) };
    },
    ListQueues(body) {
      const prefix = typeof body.QueueNamePrefix === 'string' ? body.QueueNamePrefix : '';
      return { QueueUrls: service.queueNames(prefix).map(urlOf) };
    },
    async DeleteQueue(body) {
      await service.deleteQueue(queueNameOf(body));
      return {};
    },
    async PurgeQueue(body) {
      await service.purge(queueNameOf(body));
      return {};
    },
    GetQueueAttributes(body) {
      return { Attributes: service.attributesOf(queueNameOf(body), names(body, 'AttributeNames')) };
    },
    async SetQueueAttributes(body) {
      await service.setAttributes(queueNameOf(body), stringMap(body, 'Attributes'));
      return {};
    },
    async SendMessage(body) {
      const name = queueNameOf(body);
      const [sent] = await service.send(name, [sendEntry(body, maxMessageBytes(name))]);
      return {
        MessageId: sent?.messageId,
        MD5OfMessageBody: sent?.bodyMd5,
        ...(sent?.attributesMd5 ? { MD5OfMessageAttributes: sent.attributesMd5 } : {}),
      };
    },
    async SendMessageBatch(body) {
      const name = queueNameOf(body);
      const maxBytes = maxMessageBytes(name);
      const entries = batchEntries(body);
      const valid: { id: string; entry: SendEntry }[] = [];
      const failed: ReturnType<typeof failedEntry>[] = [];
      for (const entry of entries) {
        try {
          valid.push({ id: entry.Id as string, entry: sendEntry(entry, maxBytes) });
        } catch (error) {
          if (!(error instanceof SqsError)) throw error;
          failed.push(failedEntry(entry.Id as string, error));
        }
      }
      const total = valid.reduce((sum, { entry }) => sum + Buffer.byteLength(entry.body), 0);
      if (total > maxBytes)
        throw new SqsError(
          'BatchRequestTooLong',
          `Batch requests cannot be longer than ${maxBytes} bytes. You have sent ${total} bytes.`,
          'AWS.SimpleQueueService.BatchRequestTooLong',
        );
      const sent =
        valid.length > 0
          ? await service.send(
              name,
              valid.map(({ entry }) => entry),
            )
          : [];
      return {
        Successful: sent.map((message, index) => ({
          Id: valid[index]?.id,
          MessageId: message.messageId,
          MD5OfMessageBody: message.bodyMd5,
          ...(message.attributesMd5 ? { MD5OfMessageAttributes: message.attributesMd5 } : {}),
        })),
        Failed: failed,
      };
    },
    async ReceiveMessage(body) {
      const name = queueNameOf(body);
      const waitDefault = service.setting(name, 'ReceiveMessageWaitTimeSeconds');
      const messages = await service.receive(name, {
        max: integer(body, 'MaxNumberOfMessages', 1, 10) ?? 1,
        visibilityTimeout: integer(body, 'VisibilityTimeout', 0, 43_200),
        waitSeconds: integer(body, 'WaitTimeSeconds', 0, 20) ?? waitDefault,
      });
      const systemNames = [...names(body, 'AttributeNames'), ...names(body, 'MessageSystemAttributeNames')];
      const attributeNames = names(body, 'MessageAttributeNames');
      return { Messages: messages.map((message) => receivedShape(message, systemNames, attributeNames)) };
    },
    async DeleteMessage(body) {
      const [error] = await service.delete(queueNameOf(body), [text(body, 'ReceiptHandle')]);
      if (error) throw error;
      return {};
    },
    async DeleteMessageBatch(body) {
      const entries = batchEntries(body);
      const results = await service.delete(
        queueNameOf(body),
        entries.map((entry) => String(entry.ReceiptHandle ?? '')),
      );
      return {
        Successful: entries.filter((_, index) => !results[index]).map((entry) => ({ Id: entry.Id })),
        Failed: entries.flatMap((entry, index) => {
          const error = results[index];
          return error ? [failedEntry(entry.Id as string, error)] : [];
        }),
      };
    },
    async ChangeMessageVisibility(body) {
      const [error] = await service.changeVisibility(queueNameOf(body), [
        {
          handle: text(body, 'ReceiptHandle'),
          timeoutSeconds: integer(body, 'VisibilityTimeout', 0, 43_200) ?? 0,
        },
      ]);
      if (error) throw error;
      return {};
    },
    async ChangeMessageVisibilityBatch(body) {
      const entries = batchEntries(body);
      const results = await service.changeVisibility(
        queueNameOf(body),
        entries.map((entry) => ({
          handle: String(entry.ReceiptHandle ?? ''),
          timeoutSeconds: integer(entry, 'VisibilityTimeout', 0, 43_200) ?? 0,
        })),
      );
      return {
        Successful: entries.filter((_, index) => !results[index]).map((entry) => ({ Id: entry.Id })),
        Failed: entries.flatMap((entry, index) => {
          const error = results[index];
          return error ? [failedEntry(entry.Id as string, error)] : [];
        }),
      };
    },
  };

  function answer(response: ServerResponse, status: number, payload: unknown, queryError?: string): void {
    const body = JSON.stringify(payload);
    response.writeHead(status, {
      'content-type': jsonType,
      'content-length': String(Buffer.byteLength(body)),
      'x-amzn-requestid': randomUUID(),
      ...(queryError ? { 'x-amzn-query-error': queryError } : {}),
    });
    response.end(body);
  }

  function fail(response: ServerResponse, error: unknown): void {
    const known =
      error instanceof SqsError
        ? error
        : new SqsError('InternalFailure', 'The request failed.', 'InternalFailure', 500);
    if (!(error instanceof SqsError)) process.stderr.write(`sqs stand-in: ${(error as Error).stack}\n`);
    answer(
      response,
      known.status,
      { __type: `com.amazonaws.sqs#${known.type}`, message: known.message },
      `${known.queryCode};${known.status < 500 ? 'Sender' : 'Receiver'}`,
    );
  }

  return (request: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxRequestBytes) chunks.push(chunk);
    });
    request.on('end', async () => {
      try {
        if (size > maxRequestBytes) throw invalid(`Requests are limited to ${maxRequestBytes} bytes.`);
        const target = String(request.headers['x-amz-target'] ?? '');
        if (request.method !== 'POST' || !target.startsWith('AmazonSQS.'))
          throw new SqsError(
            'UnsupportedOperation',
            'This SQS stand-in speaks the JSON protocol (x-amz-target: AmazonSQS.<Action>) only.',
            'AWS.SimpleQueueService.UnsupportedOperation',
          );
        const action = actions[target.slice('AmazonSQS.'.length)];
        if (!action)
          throw new SqsError(
            'UnsupportedOperation',
            `${target.slice('AmazonSQS.'.length)} is not offered by the local SQS stand-in.`,
            'AWS.SimpleQueueService.UnsupportedOperation',
          );
        let body: Body;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
        } catch {
          throw new SqsError('SerializationException', 'The request body is not valid JSON.', 'MalformedInput');
        }
        answer(response, 200, await action(body));
      } catch (error) {
        fail(response, error);
      }
    });
  };
}
