import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../../config.ts';
import { callLimits, transferLimits } from '../aws-http.ts';

/**
 * The platform's own bucket (claim checks, dead letters, job results). Checksums only when an API
 * requires them: S3-compatible stores such as the local one corrupt streamed uploads that carry
 * the SDK's default trailing checksums. A call whose connection stays silent 20 s is tried again
 * (shared/adapters/aws-http.ts): bodies of any size, so no limit on the whole call.
 */
export const platformS3 = new S3Client({
  requestHandler: callLimits(transferLimits),
  forcePathStyle: config.s3ForcePathStyle(),
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

export const platformBucket = () => config.platformBucket();
