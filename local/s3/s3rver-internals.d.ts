/** The parts of s3rver's own filesystem store that the durable store builds on (s3rver 3.7). */
declare module 's3rver/lib/stores/filesystem.js' {
  import type { Readable } from 'node:stream';

  export interface StoredObject {
    bucket: string;
    key: string;
    content: Buffer | Readable;
    metadata: Record<string, string>;
  }

  export default class FilesystemStore {
    constructor(rootDirectory: string);
    rootDirectory: string;
    getResourcePath(bucket: string, key?: string, resource?: string): string;
    getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
    listObjects(
      bucket: string,
      options: { prefix?: string; delimiter?: string; startAfter?: string; maxKeys?: number },
    ): Promise<{ objects: { key: string }[]; commonPrefixes: string[]; isTruncated: boolean }>;
    putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
    deleteObject(bucket: string, key: string): Promise<void>;
    copyObject(
      srcBucket: string,
      srcKey: string,
      destBucket: string,
      destKey: string,
      replacementMetadata?: Record<string, string>,
    ): Promise<Record<string, string>>;
  }
}

declare module 's3rver/lib/models/object.js' {
  const S3Object: { ALLOWED_METADATA: string[] };
  export default S3Object;
}

declare module 's3rver/lib/models/error.js' {
  /** An S3 error answer: s3rver renders it as S3's XML error body with its status. */
  export default class S3Error extends Error {
    constructor(code: string, message?: string, detail?: Record<string, unknown>);
    code: string;
    status: number;
    expose: boolean;
    detail: Record<string, unknown>;
  }
}

declare module 's3rver/lib/models/account.js' {
  /** s3rver's accounts: the access keys it knows, and the one account every request belongs to. */
  interface AWSAccount {
    id: number;
  }
  const Account: {
    registry: Map<string, AWSAccount>;
    DUMMY_ACCOUNT: AWSAccount;
  };
  export default Account;
}
