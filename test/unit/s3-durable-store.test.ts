/**
 * The S3 stand-in's store, in-process on a temporary directory. s3rver's own store answered a PUT
 * before the object was in its file (64 MB acknowledged with 10 MB on disk) and overwrote objects in
 * place, so a stand-in stopped just after answering left torn objects, and a reader could see an
 * empty one. These hold the durable store to: acknowledged means whole on disk; a reader sees the
 * old object or the new one; nothing half-written is ever listed.
 */
import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurableStore } from '../../local/s3/durable-store.ts';

let directory: string;
let store: DurableStore;
const metadata = { 'content-type': 'application/octet-stream' };

beforeEach(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 's3-store-'));
  store = new DurableStore(directory);
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const objectFile = (key: string) => store.getResourcePath('bucket', key, 'object');

function chunks(content: Buffer, size = 1 << 20): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < content.length; i += size) yield content.subarray(i, i + size);
    })(),
  );
}

describe('the S3 stand-in store', () => {
  it('answers a PUT only once the whole object is in its file, whether the body came whole or streamed', async () => {
    const content = Buffer.alloc(32 * 1024 * 1024, 7);
    await store.putObject({ bucket: 'bucket', key: 'whole', content, metadata });
    const wholeOnDisk = statSync(objectFile('whole')).size;
    await store.putObject({ bucket: 'bucket', key: 'streamed', content: chunks(content), metadata });
    const streamedOnDisk = statSync(objectFile('streamed')).size;
    expect({ wholeOnDisk, streamedOnDisk }).toEqual({ wholeOnDisk: content.length, streamedOnDisk: content.length });
  });

  it('replaces an object at once: a reader during the overwrite sees the old bytes or the new ones', async () => {
    const before = Buffer.alloc(1024 * 1024, 1);
    const after = Buffer.alloc(1024 * 1024, 2);
    await store.putObject({ bucket: 'bucket', key: 'log.json', content: before, metadata });
    const seen = new Set<string>();
    let writing = true;
    const overwrite = store
      .putObject({ bucket: 'bucket', key: 'log.json', content: chunks(after, 16 * 1024), metadata })
      .finally(() => {
        writing = false;
      });
    /** What a reader opening the object now gets: its size and its first and last bytes. */
    const look = () => {
      const descriptor = openSync(objectFile('log.json'), 'r');
      try {
        const { size } = fstatSync(descriptor);
        const ends = Buffer.alloc(2);
        readSync(descriptor, ends, 0, 1, 0);
        readSync(descriptor, ends, 1, 1, Math.max(0, size - 1));
        return `${size}:${ends[0]}:${ends[1]}`;
      } finally {
        closeSync(descriptor);
      }
    };
    while (writing) {
      seen.add(look());
      await new Promise((resolve) => setImmediate(resolve));
    }
    await overwrite;
    const possible = new Set([`${before.length}:1:1`, `${after.length}:2:2`]);
    expect([...seen].filter((state) => !possible.has(state))).toEqual([]);
    expect(readFileSync(objectFile('log.json')).equals(after)).toBe(true);
  });

  it('copies durably, lists no half-written object, and clears what a crash left half-written', async () => {
    await store.putObject({ bucket: 'bucket', key: 'a/source', content: Buffer.from('hello'), metadata });
    await store.copyObject('bucket', 'a/source', 'bucket', 'b/copy');
    expect(readFileSync(objectFile('b/copy'), 'utf8')).toBe('hello');
    // What a stand-in killed mid-write leaves: a temporary file beside the object's name.
    const torn = `${objectFile('a/torn')}.0f1e2d3c-4b5a-4968-8776-655443322110.tmp`;
    writeFileSync(torn, 'hal');
    const listed = await store.listObjects('bucket', {});
    expect(listed.objects.map((object) => object.key).sort()).toEqual(['a/source', 'b/copy']);
    expect(DurableStore.removeTemporaryFiles(directory)).toBe(1);
    expect(readdirSync(path.dirname(torn)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
