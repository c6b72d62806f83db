/** Wiki documents. */
import { getTenant } from '../dynamo/tenants.ts';
import { wiki } from '../dynamo/wiki.ts';

export const wikiStore = { ...wiki, getTenant };
