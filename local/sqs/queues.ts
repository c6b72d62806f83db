/**
 * The SQS stand-in's queues: standard queues with visibility timeouts, delays, receive counts and
 * redrive to a dead-letter queue, kept durable by a journal in DATA_DIR.
 *
 * Every change is a journal record, and one function (`apply`) turns a record into state, both
 * while serving and while replaying the journal at start, so what a restart rebuilds is what was
 * served. When a call is answered, its records are on disk:
 *  - a sent message becomes visible only once its record is durable, so no consumer can see a
 *    message whose sender never got its answer;
 *  - a receive is journaled (receive count, visibility deadline) before the consumer gets the
 *    message, so receive counts survive any crash and a poison message still reaches its
 *    dead-letter queue after `maxReceiveCount` receives;
 *  - a delete is journaled before it is acknowledged.
 * Visibility deadlines are wall-clock times, so a message in flight when everything stopped becomes
 * visible again when its timeout passes, after a restart as without one. Messages do not expire
 * while the service is stopped: the local queue keeps what it was given until it is delivered.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Journal, type JournalOptions, replayJournal } from './journal.ts';

export interface AttributeValue {
  DataType: string;
  StringValue?: string;
  /** base64, as the JSON protocol carries it */
  BinaryValue?: string;
}

interface StoredMessage {
  id: string;
  body: string;
  attributes?: Record<string, AttributeValue>;
  sentAt: number;
  visibleAt: number;
  receives: number;
  firstReceiveAt?: number;
}

interface Message extends StoredMessage {
  bodyMd5: string;
  attributesMd5?: string;
  bytes: number;
}

export type JournalRecord =
  | { t: 'queue'; name: string; attributes: Record<string, string>; createdAt: number }
  | { t: 'dropQueue'; name: string }
  | { t: 'send'; q: string; m: StoredMessage }
  | { t: 'receive'; q: string; at: number; until: number; ids: [string, number][] }
  | { t: 'visibility'; q: string; id: string; until: number }
  | { t: 'delete'; q: string; ids: string[] }
  | { t: 'move'; q: string; to: string; id: string; at: number }
  | { t: 'purge'; q: string };

export class SqsError extends Error {
  constructor(
    /** The error type the SDK turns into the exception's name. */
    readonly type: string,
    message: string,
    /** The query-protocol code SQS also sends (x-amzn-query-error). */
    readonly queryCode: string = type,
    readonly status = 400,
  ) {
    super(message);
  }
}

export const accountId = '000000000000';
export const region = 'us-east-1';
export const queueArn = (name: string) => `arn:aws:sqs:${region}:${accountId}:${name}`;

const defaultAttributes: Record<string, string> = {
  VisibilityTimeout: '30',
  // 1 MiB: SQS's maximum message size and the default of a queue that sets none, since August 2025
  // ("Amazon SQS increases maximum message payload size to 1 MiB", AWS What's New, August 2025).
  MaximumMessageSize: '1048576',
  MessageRetentionPeriod: '345600',
  DelaySeconds: '0',
  ReceiveMessageWaitTimeSeconds: '0',
};

/** Settable attributes and their ranges; others SQS knows are kept as given. */
const numericAttributes: Record<string, [number, number]> = {
  VisibilityTimeout: [0, 43_200],
  MaximumMessageSize: [1024, 1_048_576],
  MessageRetentionPeriod: [60, 1_209_600],
  DelaySeconds: [0, 900],
  ReceiveMessageWaitTimeSeconds: [0, 20],
};
const keptAttributes = new Set([
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'Policy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
]);

const md5 = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

/** SQS's digest of message attributes: names sorted, each field length-prefixed. */
export function attributesDigest(attributes: Record<string, AttributeValue>): string {
  const parts: Buffer[] = [];
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    parts.push(length, bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const value = attributes[name] as AttributeValue;
    field(Buffer.from(name, 'utf8'));
    field(Buffer.from(value.DataType, 'utf8'));
    if (value.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]));
      field(Buffer.from(value.BinaryValue, 'base64'));
    } else {
      parts.push(Buffer.from([1]));
      field(Buffer.from(value.StringValue ?? '', 'utf8'));
    }
  }
  return md5(Buffer.concat(parts));
}

function attributeBytes(attributes: Record<string, AttributeValue> | undefined): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(attributes ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType);
    bytes += value.BinaryValue !== undefined ? Buffer.from(value.BinaryValue, 'base64').length : 0;
    bytes += Buffer.byteLength(value.StringValue ?? '');
  }
  return bytes;
}

class Queue {
  /** Visible as of the last refresh, oldest first. */
  readonly ready = new Map<string, Message>();
  /** In flight or delayed, until `visibleAt`. */
  readonly hidden = new Map<string, Message>();
  private nextVisibleAt = Number.POSITIVE_INFINITY;
  private waiters = new Set<() => void>();
  liveBytes = 0;

  constructor(
    readonly name: string,
    public attributes: Record<string, string>,
    readonly createdAt: number,
    public modifiedAt: number,
  ) {}

  get(id: string): Message | undefined {
    return this.ready.get(id) ?? this.hidden.get(id);
  }

  place(message: Message, now: number): void {
    this.ready.delete(message.id);
    this.hidden.delete(message.id);
    if (message.visibleAt <= now) {
      this.ready.set(message.id, message);
      this.wake();
    } else {
      this.hidden.set(message.id, message);
      this.nextVisibleAt = Math.min(this.nextVisibleAt, message.visibleAt);
    }
  }

  remove(id: string): Message | undefined {
    const message = this.get(id);
    if (!message) return undefined;
    this.ready.delete(id);
    this.hidden.delete(id);
    this.liveBytes -= message.bytes;
    return message;
  }

  add(message: Message, now: number): void {
    this.liveBytes += message.bytes;
    this.place(message, now);
  }

  clear(): void {
    this.ready.clear();
    this.hidden.clear();
    this.liveBytes = 0;
    this.nextVisibleAt = Number.POSITIVE_INFINITY;
  }

  /** Moves messages whose visibility deadline has passed back to the visible ones. */
  refresh(now: number): void {
    if (now < this.nextVisibleAt) return;
    this.nextVisibleAt = Number.POSITIVE_INFINITY;
    for (const message of [...this.hidden.values()]) {
      if (message.visibleAt <= now) {
        this.hidden.delete(message.id);
        this.ready.set(message.id, message);
      } else {
        this.nextVisibleAt = Math.min(this.nextVisibleAt, message.visibleAt);
      }
    }
    if (this.ready.size > 0) this.wake();
  }

  /** Resolves when something may have become visible, or after `ms` at the latest. */
  changed(ms: number, now: number): Promise<void> {
    return new Promise((resolve) => {
      const wait = Math.max(0, Math.min(ms, this.nextVisibleAt - now));
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, wait);
      this.waiters.add(done);
    });
  }

  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  redrive(): { target: string; maxReceiveCount: number } | null {
    if (!this.attributes.RedrivePolicy) return null;
    const policy = JSON.parse(this.attributes.RedrivePolicy) as {
      deadLetterTargetArn: string;
      maxReceiveCount: number;
    };
    return {
      target: policy.deadLetterTargetArn.split(':').pop() ?? '',
      maxReceiveCount: Number(policy.maxReceiveCount),
    };
  }

  number(attribute: string): number {
    return Number(this.attributes[attribute] ?? defaultAttributes[attribute]);
  }
}

export interface SendEntry {
  body: string;
  delaySeconds?: number;
  attributes?: Record<string, AttributeValue>;
}

export interface SentMessage {
  messageId: string;
  bodyMd5: string;
  attributesMd5?: string;
}

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  bodyMd5: string;
  attributes: Record<string, AttributeValue> | undefined;
  attributesMd5: string | undefined;
  systemAttributes: Record<string, string>;
}

export interface QueueServiceOptions extends Omit<JournalOptions, 'directory'> {
  directory: string;
  now?: () => number;
  /** Called when the journal cannot be written: the stand-in exits rather than lose answers. */
  onJournalFailure?: (error: Error) => void;
}

export const receiptHandle = (id: string, receives: number) => `${id}#${receives}`;

function parseReceiptHandle(handle: string): { id: string; receives: number } {
  const at = handle.lastIndexOf('#');
  const receives = Number(handle.slice(at + 1));
  if (at <= 0 || !Number.isInteger(receives) || receives < 1)
    throw new SqsError('ReceiptHandleIsInvalid', `The receipt handle "${handle}" is not valid.`);
  return { id: handle.slice(0, at), receives };
}

export class QueueService {
  private readonly queues = new Map<string, Queue>();
  private journal: Journal<JournalRecord> | null = null;
  private closed = false;
  private readonly now: () => number;

  private constructor(now: () => number) {
    this.now = now;
  }

  /** Replays the journal in `directory`, compacts it, and serves from the state it held. */
  static async open(options: QueueServiceOptions): Promise<{ service: QueueService; replayed: string }> {
    const service = new QueueService(options.now ?? Date.now);
    const { records, tornBytes } = replayJournal<JournalRecord>(options.directory);
    for (const record of records) service.apply(record);
    service.journal = await Journal.open<JournalRecord>(
      options,
      { lines: () => service.snapshot(), liveBytes: () => service.liveBytes() },
      options.onJournalFailure,
    );
    const messages = [...service.queues.values()].reduce((sum, queue) => sum + queue.ready.size + queue.hidden.size, 0);
    const replayed =
      `${records.length} journal records replayed: ${service.queues.size} queues, ${messages} messages` +
      (tornBytes > 0 ? `; a torn tail of ${tornBytes} bytes (never acknowledged) dropped` : '');
    return { service, replayed };
  }

  journalFlushes(): number {
    return this.journal?.flushes ?? 0;
  }

  /** Stops serving: waiting receives answer empty, and the journal is flushed and closed. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) queue.wake();
    await this.journal?.close();
  }

  /** The only place state changes, serving or replaying. */
  private apply(record: JournalRecord): void {
    const now = this.now();
    switch (record.t) {
      case 'queue': {
        const existing = this.queues.get(record.name);
        if (existing) {
          existing.attributes = record.attributes;
          existing.modifiedAt = record.createdAt;
        } else {
          this.queues.set(record.name, new Queue(record.name, record.attributes, record.createdAt, record.createdAt));
        }
        return;
      }
      case 'dropQueue':
        this.queues.get(record.name)?.clear();
        this.queues.delete(record.name);
        return;
      case 'send': {
        const stored = record.m;
        this.queues.get(record.q)?.add(
          {
            ...stored,
            bodyMd5: md5(stored.body),
            attributesMd5: stored.attributes ? attributesDigest(stored.attributes) : undefined,
            bytes: Buffer.byteLength(stored.body) + attributeBytes(stored.attributes) + 200,
          },
          now,
        );
        return;
      }
      case 'receive': {
        const queue = this.queues.get(record.q);
        for (const [id, receives] of record.ids) {
          const message = queue?.get(id);
          if (!queue || !message) continue;
          message.receives = receives;
          message.visibleAt = record.until;
          message.firstReceiveAt ??= record.at;
          queue.place(message, now);
        }
        return;
      }
      case 'visibility': {
        const queue = this.queues.get(record.q);
        const message = queue?.get(record.id);
        if (!queue || !message) return;
        message.visibleAt = record.until;
        queue.place(message, now);
        return;
      }
      case 'delete': {
        const queue = this.queues.get(record.q);
        for (const id of record.ids) queue?.remove(id);
        return;
      }
      case 'move': {
        const message = this.queues.get(record.q)?.remove(record.id);
        const target = this.queues.get(record.to);
        if (!message || !target) return;
        message.receives = 0;
        message.visibleAt = record.at;
        message.firstReceiveAt = undefined;
        target.add(message, now);
        return;
      }
      case 'purge':
        this.queues.get(record.q)?.clear();
        return;
    }
  }

  private liveBytes(): number {
    return [...this.queues.values()].reduce((sum, queue) => sum + queue.liveBytes, 0);
  }

  /** The records that rebuild the current state (a compacted journal). */
  private snapshot(): string[] {
    const lines: string[] = [];
    for (const queue of this.queues.values()) {
      lines.push(
        `${JSON.stringify({ t: 'queue', name: queue.name, attributes: queue.attributes, createdAt: queue.createdAt } satisfies JournalRecord)}\n`,
      );
      for (const message of [...queue.ready.values(), ...queue.hidden.values()]) {
        const m: StoredMessage = {
          id: message.id,
          body: message.body,
          attributes: message.attributes,
          sentAt: message.sentAt,
          visibleAt: message.visibleAt,
          receives: message.receives,
          firstReceiveAt: message.firstReceiveAt,
        };
        lines.push(`${JSON.stringify({ t: 'send', q: queue.name, m } satisfies JournalRecord)}\n`);
      }
    }
    return lines;
  }

  private record(records: JournalRecord[]): Promise<void> {
    for (const record of records) this.apply(record);
    return (this.journal as Journal<JournalRecord>).appendAll(records);
  }

  private queue(name: string): Queue {
    const queue = this.queues.get(name);
    if (!queue)
      throw new SqsError(
        'QueueDoesNotExist',
        'The specified queue does not exist.',
        'AWS.SimpleQueueService.NonExistentQueue',
      );
    return queue;
  }

  queueNames(prefix = ''): string[] {
    return [...this.queues.keys()].filter((name) => name.startsWith(prefix)).sort();
  }

  hasQueue(name: string): boolean {
    return this.queues.has(name);
  }

  private validAttributes(given: Record<string, string>): Record<string, string> {
    const attributes: Record<string, string> = {};
    for (const [name, raw] of Object.entries(given)) {
      const value = String(raw);
      if (name === 'FifoQueue' || name === 'ContentBasedDeduplication') {
        if (value === 'true')
          throw new SqsError('UnsupportedOperation', 'The local SQS stand-in offers standard queues only.');
        continue;
      }
      const range = numericAttributes[name];
      if (range) {
        const number = Number(value);
        if (!/^\d+$/.test(value) || number < range[0] || number > range[1])
          throw new SqsError('InvalidAttributeValue', `Invalid value for the parameter ${name}.`);
        attributes[name] = value;
      } else if (keptAttributes.has(name)) {
        if (name === 'RedrivePolicy') this.validRedrivePolicy(value);
        attributes[name] = value;
      } else {
        throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      }
    }
    return attributes;
  }

  private validRedrivePolicy(value: string): void {
    const invalid = (reason: string) =>
      new SqsError('InvalidAttributeValue', `Value ${value} for parameter RedrivePolicy is invalid. Reason: ${reason}`);
    let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    try {
      policy = JSON.parse(value);
    } catch {
      throw invalid('Redrive policy is not a valid JSON map.');
    }
    const count = Number(policy.maxReceiveCount);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw invalid('Invalid value for maxReceiveCount.');
    const target = typeof policy.deadLetterTargetArn === 'string' ? policy.deadLetterTargetArn.split(':') : [];
    if (target.length !== 6 || target[0] !== 'arn') throw invalid('Dead-letter target ARN should be fully qualified.');
    if (!this.queues.has(target[5] as string)) throw invalid('Dead letter target does not exist.');
  }

  async createQueue(name: string, given: Record<string, string>): Promise<void> {
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name))
      throw new SqsError(
        'InvalidParameterValue',
        'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
      );
    const attributes = { ...defaultAttributes, ...this.validAttributes(given) };
    const existing = this.queues.get(name);
    if (existing) {
      const differs = Object.keys(given).some((key) => existing.attributes[key] !== attributes[key]);
      if (differs)
        throw new SqsError(
          'QueueNameExists',
          'A queue already exists with the same name and a different value for attribute(s)',
          'QueueAlreadyExists',
        );
      return;
    }
    await this.record([{ t: 'queue', name, attributes, createdAt: this.now() }]);
  }

  async setAttributes(name: string, given: Record<string, string>): Promise<void> {
    const queue = this.queue(name);
    const attributes = { ...queue.attributes, ...this.validAttributes(given) };
    if (given.RedrivePolicy === '') delete attributes.RedrivePolicy;
    await this.record([{ t: 'queue', name, attributes, createdAt: this.now() }]);
  }

  async deleteQueue(name: string): Promise<void> {
    this.queue(name);
    await this.record([{ t: 'dropQueue', name }]);
  }

  async purge(name: string): Promise<void> {
    this.queue(name);
    await this.record([{ t: 'purge', q: name }]);
  }

  /** One of a queue's numeric settings (VisibilityTimeout, MaximumMessageSize, …), without counting messages. */
  setting(name: string, attribute: string): number {
    return this.queue(name).number(attribute);
  }

  attributesOf(name: string, wanted: string[]): Record<string, string> {
    const queue = this.queue(name);
    const now = this.now();
    queue.refresh(now);
    let inFlight = 0;
    let delayed = 0;
    for (const message of queue.hidden.values()) {
      if (message.receives > 0) inFlight++;
      else delayed++;
    }
    const all: Record<string, string> = {
      ...queue.attributes,
      QueueArn: queueArn(queue.name),
      ApproximateNumberOfMessages: String(queue.ready.size),
      ApproximateNumberOfMessagesNotVisible: String(inFlight),
      ApproximateNumberOfMessagesDelayed: String(delayed),
      CreatedTimestamp: String(Math.floor(queue.createdAt / 1000)),
      LastModifiedTimestamp: String(Math.floor(queue.modifiedAt / 1000)),
    };
    if (wanted.includes('All')) return all;
    return Object.fromEntries(wanted.filter((name) => name in all).map((name) => [name, all[name] as string]));
  }

  /** Sends messages; resolves once they are on disk, when they also become visible (after any delay). */
  async send(name: string, entries: SendEntry[]): Promise<SentMessage[]> {
    const queue = this.queue(name);
    const now = this.now();
    const records: JournalRecord[] = entries.map((entry) => ({
      t: 'send',
      q: name,
      m: {
        id: randomUUID(),
        body: entry.body,
        ...(entry.attributes && Object.keys(entry.attributes).length > 0 ? { attributes: entry.attributes } : {}),
        sentAt: now,
        visibleAt: now + (entry.delaySeconds ?? queue.number('DelaySeconds')) * 1000,
        receives: 0,
      },
    }));
    await (this.journal as Journal<JournalRecord>).appendAll(records, () => {
      for (const record of records) this.apply(record);
    });
    return records.map((record) => {
      const { m } = record as Extract<JournalRecord, { t: 'send' }>;
      return {
        messageId: m.id,
        // Digested once, as it was stored (unless a receiver took it away meanwhile).
        bodyMd5: queue.get(m.id)?.bodyMd5 ?? md5(m.body),
        attributesMd5: m.attributes ? attributesDigest(m.attributes) : undefined,
      };
    });
  }

  /**
   * Receives up to `max` visible messages, waiting up to `waitSeconds` for one. A message already
   * received `maxReceiveCount` times moves to the dead-letter queue instead of being delivered.
   */
  async receive(
    name: string,
    options: { max: number; visibilityTimeout?: number; waitSeconds: number },
  ): Promise<ReceivedMessage[]> {
    const queue = this.queue(name);
    const deadline = this.now() + options.waitSeconds * 1000;
    for (;;) {
      const received = await this.take(queue, options.max, options.visibilityTimeout);
      if (received.length > 0 || this.closed || this.now() >= deadline) return received;
      await queue.changed(deadline - this.now(), this.now());
    }
  }

  private async take(queue: Queue, max: number, visibilityTimeout: number | undefined): Promise<ReceivedMessage[]> {
    const now = this.now();
    queue.refresh(now);
    const redrive = queue.redrive();
    const until = now + (visibilityTimeout ?? queue.number('VisibilityTimeout')) * 1000;
    const records: JournalRecord[] = [];
    const taken: [string, number][] = [];
    const messages: Message[] = [];
    for (const message of queue.ready.values()) {
      if (taken.length >= max) break;
      if (redrive && message.receives >= redrive.maxReceiveCount && this.queues.has(redrive.target)) {
        records.push({ t: 'move', q: queue.name, to: redrive.target, id: message.id, at: now });
        continue;
      }
      taken.push([message.id, message.receives + 1]);
      messages.push(message);
    }
    if (taken.length > 0) records.push({ t: 'receive', q: queue.name, at: now, until, ids: taken });
    if (records.length === 0) return [];
    const received = messages.map((message, index) => {
      const receives = (taken[index] as [string, number])[1];
      return {
        messageId: message.id,
        receiptHandle: receiptHandle(message.id, receives),
        body: message.body,
        bodyMd5: message.bodyMd5,
        attributes: message.attributes,
        attributesMd5: message.attributesMd5,
        systemAttributes: {
          SenderId: accountId,
          SentTimestamp: String(message.sentAt),
          ApproximateReceiveCount: String(receives),
          ApproximateFirstReceiveTimestamp: String(message.firstReceiveAt ?? now),
        },
      };
    });
    await this.record(records);
    return received;
  }

  /**
   * Deletes by receipt handle. As on SQS, a handle from an earlier receive of a message that was
   * received again since is accepted but deletes nothing: the later receiver owns the message.
   */
  async delete(name: string, handles: string[]): Promise<(SqsError | null)[]> {
    const queue = this.queue(name);
    const ids: string[] = [];
    const results = handles.map((handle) => {
      try {
        const { id, receives } = parseReceiptHandle(handle);
        if (queue.get(id)?.receives === receives) ids.push(id);
        return null;
      } catch (error) {
        return error as SqsError;
      }
    });
    if (ids.length > 0) await this.record([{ t: 'delete', q: name, ids }]);
    return results;
  }

  async changeVisibility(
    name: string,
    entries: { handle: string; timeoutSeconds: number }[],
  ): Promise<(SqsError | null)[]> {
    const queue = this.queue(name);
    const now = this.now();
    const records: JournalRecord[] = [];
    const results = entries.map(({ handle, timeoutSeconds }) => {
      try {
        const { id, receives } = parseReceiptHandle(handle);
        const message = queue.get(id);
        if (!message || message.receives !== receives || message.visibleAt <= now)
          throw new SqsError(
            'MessageNotInflight',
            'The message referred to is not in flight.',
            'AWS.SimpleQueueService.MessageNotInflight',
          );
        records.push({ t: 'visibility', q: name, id, until: now + timeoutSeconds * 1000 });
        return null;
      } catch (error) {
        return error as SqsError;
      }
    });
    if (records.length > 0) await this.record(records);
    return results;
  }
}
