/** Users and API keys: what authentication and the user routes need. */
import * as apiKeys from '../dynamo/api-keys.ts';
import { getTenant } from '../dynamo/tenants.ts';
import * as users from '../dynamo/users.ts';

export const identity = { ...users, ...apiKeys, getTenant };
