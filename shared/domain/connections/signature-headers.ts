/**
 * The request headers that carry a connection's signature, MAC, signed token or shared secret: what
 * a refused request must not keep and a rejection must not show (a valid signature refused for the
 * source's state is a request anyone reading the rejections could replay). Headers a scheme only
 * signs along (a timestamp of its own, a delivery id) carry no secret and stay: they are what a
 * sender needs to tell a stale or repeated request.
 */
import { type Carrier, presets, type SignatureScheme, type Verification } from './presets.ts';
import type { SignatureSettings } from './source-security.ts';

function carrierHeader(carrier: Carrier): string[] {
  return 'header' in carrier ? [carrier.header] : [];
}

function presetSignatureHeaders(verification: Verification): string[] {
  switch (verification.kind) {
    case 'hmac':
      // A `t=…,v1=…` pair header carries the timestamp and the MAC together; it is the signature carrier.
      return carrierHeader(verification.signature);
    case 'token':
    case 'jwt':
      return [verification.header];
    case 'ed25519':
    case 'ecdsa':
      return [verification.signature];
    case 'client-state':
      return [];
  }
}

/** Lowercase names of the headers the settings read a signature or secret from: the preset's, and the connection's own header. */
export function signatureHeadersOf(settings: Pick<SignatureSettings, 'scheme' | 'header'>): string[] {
  const names = presetSignatureHeaders(presets[settings.scheme].verification);
  if (settings.header) names.push(settings.header);
  return names.map((name) => name.toLowerCase());
}

/** Every header any preset reads a signature or secret from: kept by no rejection, whatever its source's settings. */
export const everyPresetSignatureHeader: ReadonlySet<string> = new Set(
  (Object.keys(presets) as SignatureScheme[]).flatMap((scheme) => signatureHeadersOf({ scheme, header: null })),
);

/** The headers a refused request of a source with these settings (null: none, or not known) must not keep. */
export function secretHeadersOf(settings: Pick<SignatureSettings, 'scheme' | 'header'> | null): ReadonlySet<string> {
  if (!settings) return everyPresetSignatureHeader;
  return new Set([...everyPresetSignatureHeader, ...signatureHeadersOf(settings)]);
}
