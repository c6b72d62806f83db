/**
 * The deployment's edge, proven. With CloudFront and AWS WAF in front of the API (`-c edge=true`),
 * API Gateway's own execute-api address still answers; a request sent there directly would walk
 * around the firewall. So CloudFront adds `x-tributary-origin` to every request it forwards, with
 * a secret held in Secrets Manager, and every HTTP function (shared/http/api-handler.ts's httpEdge)
 * refuses a request without it, before anything else runs: no table read, no S3 call, no queue send.
 *
 * The secret is read once per cache window, never per request: its current value and, while a
 * rotation reaches CloudFront, its previous one are both accepted (docs/deploying.md).
 *
 * Only a request that proved it came through the edge is believed about the viewer's address
 * (CloudFront-Viewer-Address, which anyone can send to the API's own address); any other is the
 * address API Gateway saw.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { forbidden } from '../domain/errors.ts';
import { edgeOriginHeader } from '../domain/ingest/credential-headers.ts';
import { header } from './request.ts';

/** The header CloudFront adds to every request it forwards to the API (lowercase: API Gateway's v2 events carry headers so). */
export const originHeader = edgeOriginHeader;

/** The header CloudFront sets to the viewer's address and port (forwarded by the edge's origin request policy). */
export const viewerAddressHeader = 'cloudfront-viewer-address';

/** The environment variable naming the origin secret: set on every HTTP function when the deployment has the edge on. */
export const originSecretEnv = 'EDGE_ORIGIN_SECRET_ARN';

/** How long the secret's values are kept before they are read again: how soon a rotation's new value is accepted. */
export const originSecretCacheMs = 5 * 60 * 1000;

/** The values a request's header may carry: the secret's current one and, when it has one, its previous one. */
export type OriginSecretValues = () => Promise<string[]>;

export interface EdgeOriginOptions {
  /** The origin secret's values; undefined when the deployment has no edge (every request is then direct). */
  secretValues?: OriginSecretValues;
  now?: () => number;
  cacheMs?: number;
}

/** Requests that proved they came through the edge (their viewer address is believed). */
const throughEdge = new WeakSet<APIGatewayProxyEventV2>();

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The check every HTTP function runs first. Without an edge it lets every request through; with one,
 * a request whose `x-tributary-origin` is not one of the secret's values is refused with 403
 * FORBIDDEN, and one whose header is marks its event as having come through the edge.
 */
export function edgeOriginCheck(options: EdgeOriginOptions): (event: APIGatewayProxyEventV2) => Promise<void> {
  const { secretValues } = options;
  if (!secretValues) return async () => {};
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? originSecretCacheMs;
  let cached: { digests: Promise<Buffer[]>; expires: number } | undefined;
  const accepted = (): Promise<Buffer[]> => {
    if (cached && cached.expires > now()) return cached.digests;
    const entry = {
      digests: secretValues().then((values) => values.filter((value) => value.length > 0).map(digest)),
      expires: Number.POSITIVE_INFINITY,
    };
    cached = entry;
    entry.digests.then(
      () => {
        entry.expires = now() + cacheMs;
      },
      () => {
        // A failed read is not kept: the next request reads again.
        if (cached === entry) cached = undefined;
      },
    );
    return entry.digests;
  };
  return async (event) => {
    const presented = header(event, originHeader);
    if (!presented) throw forbidden('Requests reach this API through its edge only');
    // Compared as digests, in constant time: the header's length tells nothing either.
    const presentedDigest = digest(presented);
    const matches = (await accepted()).some((value) => timingSafeEqual(value, presentedDigest));
    if (!matches) throw forbidden('Requests reach this API through its edge only');
    throughEdge.add(event);
  };
}

/**
 * The address of the client that sent the request: CloudFront's viewer address for a request that
 * proved it came through the edge, else the address API Gateway saw (sourceIp).
 */
export function clientAddress(event: APIGatewayProxyEventV2): string {
  const sourceIp = event.requestContext?.http?.sourceIp ?? '';
  if (!throughEdge.has(event)) return sourceIp;
  return viewerAddressOf(header(event, viewerAddressHeader)) ?? sourceIp;
}

/**
 * The address of a CloudFront-Viewer-Address value: the address and the port after its last colon
 * (`198.51.100.10:46532`, `2001:db8::8:46532`); undefined for anything else.
 */
export function viewerAddressOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const match = /^(.+):(\d{1,5})$/.exec(value.trim());
  const address = match?.[1];
  if (!address) return undefined;
  const ipv4 = /^(\d{1,3})(\.\d{1,3}){3}$/.test(address);
  const ipv6 = address.includes(':') && /^[0-9a-fA-F:.]+$/.test(address);
  return ipv4 || ipv6 ? address : undefined;
}
