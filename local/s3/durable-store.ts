/**
 * s3rver's filesystem store, made durable and atomic. s3rver answers a PUT before its file is
 * written (a Buffer body is handed to a write stream and the answer goes at once), writes in place
 * over the previous content, and never flushes: a stand-in stopped or killed just after answering
 * can leave an object empty or torn that a writer was told is stored, and a reader can see a
 * half-written one. Here every object is written to a temporary file beside its final name,
 * flushed, and renamed over it (with its metadata and digest files written the same way first),
 * and the directory is flushed, all before the PUT or COPY is answered. A crash leaves either the
 * old object or the new one; temporary files it leaves are invisible to listings and removed at
 * the next start.
 *
 * Writes may be conditional (If-None-Match, If-Match: see conditional-writes.ts): the condition is
 * checked before the body is read and again, with the final rename, under the key's lock; every
 * write and delete of a key takes that lock for its last step, so no other request slips between a
 * condition and the write it guards.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, readdirSync, rmSync } from 'node:fs';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import S3Object from 's3rver/lib/models/object.js';
import FilesystemStore, { type StoredObject } from 's3rver/lib/stores/filesystem.js';
import { syncDirectory } from '../sqs/journal.ts';
import {
  checkCondition,
  conditionalRequestConflict,
  currentCondition,
  KeyCoordinator,
  type Watch,
  type WriteCondition,
} from './conditional-writes.ts';

const temporaryName = (file: string) => `${file}.${randomUUID()}.tmp`;
const isTemporary = /\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

/** Writes bytes to a new file and flushes it; answers their size and MD5. */
async function writeFlushed(file: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  const handle = await open(file, 'w');
  const digest = createHash('md5');
  let size = 0;
  try {
    const chunks: AsyncIterable<Buffer> | Buffer[] = Buffer.isBuffer(content) ? [content] : content;
    for await (const chunk of chunks) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      digest.update(bytes);
      size += bytes.length;
      let offset = 0;
      while (offset < bytes.length) offset += (await handle.write(bytes, offset)).bytesWritten;
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return { size, md5: digest.digest('hex') };
}

/** Replaces `file` with `content` atomically: a temporary file, flushed, renamed over it. */
async function replaceFile(file: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  const temporary = temporaryName(file);
  try {
    const written = await writeFlushed(temporary, content);
    await rename(temporary, file);
    return written;
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

export class DurableStore extends FilesystemStore {
  /** Removes temporary files a crash left behind (never acknowledged, never listed). */
  static removeTemporaryFiles(rootDirectory: string): number {
    let removed = 0;
    for (const name of readdirSync(rootDirectory, { recursive: true, encoding: 'utf8' })) {
      if (!isTemporary.test(name)) continue;
      rmSync(path.join(rootDirectory, name), { force: true });
      removed++;
    }
    return removed;
  }

  /** Creates the object's directory, flushing the parent of each directory it had to make. */
  private async directoryFor(file: string): Promise<void> {
    const directory = path.dirname(file);
    const created = await mkdir(directory, { recursive: true });
    if (created === undefined) return;
    for (let current = directory; current !== path.dirname(current); current = path.dirname(current)) {
      syncDirectory(path.dirname(current));
      if (current === created) break;
    }
  }

  override async putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string) {
    const json = Object.fromEntries(
      Object.entries(metadata).filter(
        ([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-'),
      ),
    );
    const metadataPath = this.getResourcePath(bucket, key, 'metadata.json');
    await this.directoryFor(metadataPath);
    if (md5) await replaceFile(this.getResourcePath(bucket, key, 'object.md5'), Buffer.from(md5));
    await replaceFile(metadataPath, Buffer.from(JSON.stringify(json, null, 2)));
    syncDirectory(path.dirname(metadataPath));
  }

  private readonly keys = new KeyCoordinator();

  /** The stored object's ETag (quoted, as s3rver keeps it), or null when the key holds no object. */
  private async etagOf(bucket: string, key: string): Promise<string | null> {
    try {
      return (await this.getMetadata(bucket, key)).etag ?? null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  private async check(condition: WriteCondition, bucket: string, key: string): Promise<void> {
    checkCondition(condition, key, await this.etagOf(bucket, key));
  }

  override async putObject(object: StoredObject) {
    const id = `${object.bucket}/${object.key}`;
    const condition = currentCondition();
    // Checked as the request arrives, and watched until it lands: a write of the key in between is a conflict.
    let watch: Watch | null = null;
    if (condition)
      watch = await this.keys.exclusive(id, async () => {
        await this.check(condition, object.bucket, object.key);
        return this.keys.watch(id);
      });
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    const temporary = temporaryName(objectPath);
    try {
      await this.directoryFor(objectPath);
      const written = await writeFlushed(temporary, object.content);
      await this.keys.exclusive(id, async () => {
        if (watch?.conflicted) throw conditionalRequestConflict();
        if (condition) await this.check(condition, object.bucket, object.key);
        await this.putMetadata(object.bucket, object.key, object.metadata, written.md5);
        // The object appears under its name last: a reader never finds it without its metadata.
        await rename(temporary, objectPath);
        syncDirectory(path.dirname(objectPath));
        this.keys.changed(id, watch);
      });
      return written;
    } finally {
      this.keys.unwatch(id, watch);
      rmSync(temporary, { force: true });
    }
  }

  override async deleteObject(bucket: string, key: string) {
    const id = `${bucket}/${key}`;
    await this.keys.exclusive(id, async () => {
      await super.deleteObject(bucket, key);
      this.keys.changed(id, null);
    });
  }

  override async copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    replacementMetadata?: Record<string, string>,
  ) {
    const sourcePath = this.getResourcePath(srcBucket, srcKey, 'object');
    const metadata =
      replacementMetadata ??
      (JSON.parse(await readFile(this.getResourcePath(srcBucket, srcKey, 'metadata.json'), 'utf8')) as Record<
        string,
        string
      >);
    if (sourcePath === this.getResourcePath(destBucket, destKey, 'object')) {
      await this.putMetadata(destBucket, destKey, metadata);
    } else {
      await this.putObject({
        bucket: destBucket,
        key: destKey,
        content: createReadStream(sourcePath),
        metadata,
      });
    }
    return this.getMetadata(destBucket, destKey);
  }
}
