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
