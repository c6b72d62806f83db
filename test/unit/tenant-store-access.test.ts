/**
 * What a function may do with tenants' stores when its environment does not say: read only. Only a
 * function whose declared access writes (TENANT_STORES_ACCESS=readWrite, set by the stack and by
 * local mode from the template) opens store sessions that may write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';

const before = process.env.TENANT_STORES_ACCESS;
afterEach(() => {
  if (before === undefined) delete process.env.TENANT_STORES_ACCESS;
  else process.env.TENANT_STORES_ACCESS = before;
});

describe('a function’s access to tenants’ stores', () => {
  it.each([
    [undefined, 'read'],
    ['', 'read'],
    ['read', 'read'],
    ['write', 'read'],
    ['ReadWrite', 'read'],
    ['readWrite', 'readWrite'],
  ])('is %j → %s', (value, access) => {
    if (value === undefined) delete process.env.TENANT_STORES_ACCESS;
    else process.env.TENANT_STORES_ACCESS = value;
    expect(config.tenantStoreAccess()).toBe(access);
  });
});
