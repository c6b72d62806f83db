/** Connections (webhook sources) and their sealed tokens and signing secrets. */
import * as connections from '../dynamo/connections.ts';
import { getSource, setSourceSecurity } from '../dynamo/sources.ts';
import { getTenant } from '../dynamo/tenants.ts';
import { secretBox } from '../secret-box.ts';

export const connectivity = { ...connections, getSource, setSourceSecurity, getTenant, secrets: secretBox };
