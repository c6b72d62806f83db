/**
 * Public AWS prices for us-east-1 (N. Virginia), on-demand, after free tiers, as listed on each
 * service's pricing page when this table was written. `npm run bench cost` prices what it measured
 * with these figures and nothing else; update the date with the figures.
 */
export const prices = {
  asOf: '2026-11-23',
  region: 'us-east-1',
  apiGateway: {
    /** HTTP API, first 300 million requests a month; each request metered in 512 KB increments. */
    httpApiPerMillion: 1.0,
    meteredBytes: 512 * 1024,
  },
  lambda: {
    /** arm64 (Graviton). */
    perGbSecond: 0.0000133334,
    requestsPerMillion: 0.2,
  },
  sqs: {
    /** Standard queues, after the first million requests; every 64 KB chunk of a payload is a request. */
    requestsPerMillion: 0.4,
    chunkBytes: 64 * 1024,
  },
  dynamoDb: {
    /** On-demand capacity. */
    writeUnitsPerMillion: 0.625,
    readUnitsPerMillion: 0.125,
    pointInTimeRecoveryPerGbMonth: 0.2,
  },
  s3: {
    /** S3 Standard: PUT, COPY, POST and LIST requests. */
    putPerThousand: 0.005,
    /** GET, SELECT and all other requests except DELETE and CANCEL, which are free. */
    getPerThousand: 0.0004,
    storagePerGbMonth: 0.023,
  },
  cloudWatch: {
    /** Logs ingested (standard log class). */
    logsPerGb: 0.5,
    customMetricPerMonth: 0.3,
    /** Standard-resolution alarm, per metric the alarm evaluates. */
    alarmMetricPerMonth: 0.1,
    dashboardPerMonth: 3.0,
  },
  xRay: {
    tracesRecordedPerMillion: 5.0,
    /** The default sampling rule: the first request each second, then 5 % of the rest. */
    defaultReservoirPerSecond: 1,
    defaultRate: 0.05,
  },
  secretsManager: { secretPerMonth: 0.4 },
  kms: { customerKeyPerMonth: 1.0 },
};

/**
 * Not prices but what they depend on and local mode cannot show: AWS's own latencies and platform
 * behaviour. Each is an assumption, stated here so that a reader can change it and see the effect.
 */
export const assumptions = {
  /**
   * In-region round trip of one call from Lambda, in ms: what a function waits for each call it makes
   * (the local stand-ins answer faster or slower than AWS does, so their timings are not used).
   */
  callLatencyMs: {
    DynamoDB: 5,
    'DynamoDB batch': 10,
    SQS: 10,
    'S3 put': 30,
    'S3 get': 15,
    'S3 other': 20,
    STS: 30,
    'Secrets Manager': 20,
  } as Record<string, number>,
  /** Lambda gives a function CPU in proportion to its memory; 1,769 MB is one full vCPU. */
  fullVcpuMemoryMb: 1769,
  /**
   * Platform log records per invocation at the INFO system log level, JSON format: start and report,
   * as Lambda writes them (a WARN system log level drops both).
   */
  platformRecords: [
    '{"time":"2026-11-23T10:00:00.000Z","type":"platform.start","record":{"requestId":"6d68ca91-49c9-448d-89b8-7ca3e6dc66aa","version":"$LATEST"}}',
    '{"time":"2026-11-23T10:00:00.010Z","type":"platform.report","record":{"requestId":"6d68ca91-49c9-448d-89b8-7ca3e6dc66aa","metrics":{"durationMs":9.52,"billedDurationMs":10,"memorySizeMB":512,"maxMemoryUsedMB":93},"status":"success"}}',
  ],
  /**
   * An event source mapping polls each SQS queue with five long polls (20 s) at rest: ~650,000
   * ReceiveMessage requests a month per queue, whatever the traffic.
   */
  idlePollsPerQueueMonth: 5 * 3 * 60 * 24 * 30.4,
};
