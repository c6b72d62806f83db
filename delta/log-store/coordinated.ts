/**
 * For a store that does not honour conditional writes, the coordination of Delta's
 * S3DynamoDBLogStore: the commit goes to a temporary object, a conditional put of the version's
 * claim in a database is the commit, and copying it to `_delta_log/<version>.json` finishes it.
 * Anyone finding a claim unfinished finishes it; nobody claims version n+1 before n is finished.
 * No log file is overwritten by this writer, but another engine writing to such a table bypasses
 * the claims.
 */
import { randomUUID } from 'node:crypto';
import { logFileName } from '../kernel/log.ts';
import type { TableStorage } from '../kernel/storage.ts';
import type { LogArbiter } from './arbiter.ts';

/** A version claimed in the database, for a store without conditional writes. */
export interface Claim {
  version: number;
  runId: string;
  /** The commit's content under a name no reader looks at, until it is copied to the log. */
  tempKey: string;
  complete: boolean;
}

/** Who holds each version (DynamoDB, or an in-memory stand-in). */
export interface VersionClaims {
  /** The highest claim of the table (strongly consistent); null when there is none (new, or expired). */
  latest(tableId: string): Promise<Claim | null>;
  claimAt(tableId: string, version: number): Promise<Claim | null>;
  /** Puts the claim only if its version is free; false when another writer holds it. */
  claim(tableId: string, claim: Claim): Promise<boolean>;
  markComplete(tableId: string, version: number): Promise<void>;
}

export function coordinatedArbiter(storage: TableStorage, claims: VersionClaims): LogArbiter {
  const finish = async (tableId: string, claim: Claim) => {
    if (claim.complete) return;
    // Copied only when not there yet: on a store whose writes are not atomic, rewriting a commit
    // file could hand a concurrent reader half of it.
    if (!(await storage.getIfExists(logFileName(claim.version)))) {
      await storage.put(logFileName(claim.version), await storage.get(claim.tempKey), 'application/json');
    }
    await claims.markComplete(tableId, claim.version);
  };
  return {
    async settle(tableId) {
      const latest = await claims.latest(tableId);
      if (!latest) return null;
      await finish(tableId, latest);
      return latest.version;
    },
    async write(tableId, version, content, runId) {
      const tempKey = `_delta_log/.tmp/${logFileName(version).slice('_delta_log/'.length)}.${randomUUID()}`;
      await storage.put(tempKey, content, 'application/json');
      const claim: Claim = { version, runId, tempKey, complete: false };
      if (await claims.claim(tableId, claim)) {
        // Claimed, but another engine (which knows nothing of the claims) may have written the version already: the
        // version is then its commit, not this one, and this one is answered as lost to it.
        const there = await storage.getIfExists(logFileName(version));
        if (there && !there.equals(Buffer.from(content))) {
          await claims.markComplete(tableId, version);
          await storage.delete([tempKey]);
          return false;
        }
        await finish(tableId, claim);
        return true;
      }
      await storage.delete([tempKey]);
      const winner = await claims.claimAt(tableId, version);
      if (winner) await finish(tableId, winner);
      return false;
    },
  };
}
