import { benchFreshness } from './bench/staging.ts';
console.log(JSON.stringify(await benchFreshness(20), null, 1));
process.exit(0);
