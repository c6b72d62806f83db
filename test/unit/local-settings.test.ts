import { describe, expect, it } from 'vitest';
import { readLocalSettings } from '../../local/settings.ts';

describe('local settings', () => {
  it('read the environment they are given, not the process’s', () => {
    const settings = readLocalSettings({
      PORT: '4100',
      LOCAL_DYNAMODB_PORT: '4101',
      LOCAL_S3_PORT: '4102',
      LOCAL_SQS_PORT: '4103',
      LOCAL_BUCKETS: 'a, b',
      LOCAL_BATCH_WINDOW_SECONDS: '0',
      LOCAL_VISIBILITY_TIMEOUT_SECONDS: '3',
      LOCAL_DRAIN_TIMEOUT_SECONDS: '4',
      LOCAL_POLLERS_PER_CONSUMER: '5',
      LOCAL_SCHEDULE_SECONDS: '6',
      LOCAL_DYNAMODB_IN_MEMORY: 'true',
    });
    expect(settings).toMatchObject({
      port: 4100,
      dynamodbPort: 4101,
      s3Port: 4102,
      sqsPort: 4103,
      buckets: ['a', 'b'],
      batchWindowSeconds: 0,
      visibilityTimeoutSeconds: 3,
      drainTimeoutSeconds: 4,
      pollersPerConsumer: 5,
      scheduleSecondsOverride: 6,
      dynamodbInMemory: true,
    });
  });

  it('default to the contract’s ports when the environment says nothing', () => {
    expect(readLocalSettings({})).toMatchObject({
      port: 3000,
      dynamodbPort: 8000,
      s3Port: 4569,
      sqsPort: 9324,
      dynamodbInMemory: false,
    });
  });
});

/**
 * Every numeric setting is held to what it may be, at start: a value out of range, not a number or not
 * whole stops `npm start` with a message that names the variable, what it takes and what it was
 * given. Before, LOCAL_SCHEDULE_SECONDS=5m ran every schedule back to back (NaN seconds), and
 * INGEST_CACHE_SECONDS=abc turned the cache off without a word.
 */
describe('local settings refuse what a setting cannot be', () => {
  it.each([
    ['PORT', '0', 'must be a whole number from 1 to 65,535, got "0"'],
    ['LOCAL_S3_PORT', '70000', 'must be a whole number from 1 to 65,535, got "70000"'],
    ['LOCAL_SCHEDULE_SECONDS', '5m', 'must be a whole number from 1 to 3,600, got "5m"'],
    ['LOCAL_SCHEDULE_SECONDS', '0', 'must be a whole number from 1 to 3,600, got "0"'],
    ['LOCAL_BATCH_WINDOW_SECONDS', '301', 'must be a whole number from 0 to 300, got "301"'],
    ['LOCAL_VISIBILITY_TIMEOUT_SECONDS', '-1', 'must be a whole number from 0 to 43,200, got "-1"'],
    ['LOCAL_POLLERS_PER_CONSUMER', '1.5', 'must be a whole number from 0 to 1,000, got "1.5"'],
    ['LOCAL_DRAIN_TIMEOUT_SECONDS', 'thirty', 'must be a whole number from 0 to 3,600, got "thirty"'],
    ['LOCAL_ACCOUNT_CONCURRENCY', '0', 'must be a whole number from 1 to 1,000,000, got "0"'],
    ['INGEST_CACHE_SECONDS', 'abc', 'must be a whole number from 0 to 3,600, got "abc"'],
    ['TABLE_FRESHNESS_SECONDS', '-5', 'must be a whole number from 0 to 86,400, got "-5"'],
    ['TABLE_FRESHNESS_SECONDS', '86401', 'must be a whole number from 0 to 86,400, got "86401"'],
    ['DATA_RETENTION_DAYS', '1.5', 'must be a whole number from 0 to 36,500, got "1.5"'],
    ['INGEST_MAX_BYTES', '5000000', 'must be a whole number from 1 to 4,194,304, got "5000000"'],
    ['INGEST_INLINE_MAX_BYTES', '300000', 'must be a whole number from 1,024 to 262,144, got "300000"'],
    ['REJECTIONS_PER_SOURCE', '0', 'must be a whole number from 1 to 100,000, got "0"'],
    ['COUNTER_FLUSH_SECONDS', '3600', 'must be a whole number from 1 to 900, got "3600"'],
    ['COUNTER_WINDOW_SECONDS', '7', 'must be a whole number from 1 to 900 that divides 900, got "7"'],
    ['JOB_LEASE_SECONDS', '0', 'must be a whole number from 1 to 900, got "0"'],
    ['WRITER_BACKOFF_SECONDS', '5401', 'must be a whole number from 0 to 5,400, got "5401"'],
    ['HEALTH_MAX_AGE_SECONDS', '11', 'must be a whole number from 0 to 10, got "11"'],
  ])('%s=%s', (name, value, message) => {
    expect(() => readLocalSettings({ [name]: value })).toThrow(`Environment variable ${name} ${message}`);
  });

  it.each([
    ['LOCAL_POLLERS_PER_CONSUMER', '0', { pollersPerConsumer: 0 }],
    ['LOCAL_SCHEDULE_SECONDS', ' ', { scheduleSecondsOverride: null }],
    ['LOCAL_BATCH_WINDOW_SECONDS', '', { batchWindowSeconds: null }],
    ['LOCAL_VISIBILITY_TIMEOUT_SECONDS', '43200', { visibilityTimeoutSeconds: 43_200 }],
  ])('take %s=%j at the edge of its range, or as unset', (name, value, expected) => {
    expect(readLocalSettings({ [name]: value })).toMatchObject(expected);
  });

  it.each([
    ['COUNTER_WINDOW_SECONDS', '60'],
    ['TABLE_FRESHNESS_SECONDS', '0'],
    ['INGEST_CACHE_SECONDS', '3600'],
    ['HEALTH_MAX_AGE_SECONDS', '0'],
  ])('let the functions’ own %s=%s through', (name, value) => {
    expect(() => readLocalSettings({ [name]: value })).not.toThrow();
  });
});
