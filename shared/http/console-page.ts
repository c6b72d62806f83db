/**
 * The operator console as Tributary serves it (`GET /console`): a page that loads one script, one
 * stylesheet and its icon from the same route (`?asset=`), under a Content-Security-Policy that allows nothing
 * but this origin: no inline script or style, no eval, no other host, and Trusted Types with no
 * policy, so the browser itself refuses any attempt to write HTML from a string.
 *
 * The assets are built from console/src (console/build.ts): at synth they are copied beside the
 * function's bundle; locally they are read from dist/console, which `npm start` builds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { notFound } from '../domain/errors.ts';

export const consoleAssetTypes = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
} as const;
export type ConsoleAsset = keyof typeof consoleAssetTypes;

export const consoleContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const consolePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Tributary console</title><meta name="referrer" content="no-referrer"><link rel="icon" type="image/svg+xml" href="console?asset=icon.svg">
<link rel="stylesheet" href="console?asset=console.css"><script type="module" src="console?asset=console.js"></script>
</head><body><div id="app"><noscript>The console needs JavaScript.</noscript></div></body></html>
`;

/** Beside the bundle on AWS (the Lambda task root); the local build directory otherwise. */
function assetDirectory(): string {
  return process.env.LAMBDA_TASK_ROOT ?? path.resolve('dist', 'console');
}

export function consoleAsset(name: ConsoleAsset): string {
  try {
    return readFileSync(path.join(assetDirectory(), name), 'utf8');
  } catch {
    throw notFound(`Console asset ${name} (the console is not built: \`npm start\` builds it)`);
  }
}
