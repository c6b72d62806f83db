/**
 * The names the security settings take, apart from the preset table (presets.ts), so that a schema
 * naming them does not carry the table; the table must hold a row for every scheme, and no other.
 */
export const authModes = ['bearer', 'signature', 'bearer_and_signature'] as const;
export type AuthMode = (typeof authModes)[number];

export const signatureSchemes = [
  'standard-webhooks',
  'github',
  'stripe',
  'hmac-sha256',
  'slack',
  'meta',
  'zoom',
  'microsoft-graph',
  'twilio',
  'square',
  'hubspot',
  'linear',
  'paddle',
  'sendgrid',
  'shopify',
  'gitlab',
  'intercom',
  'pagerduty',
  'typeform',
  'calendly',
  'mailgun',
  'dropbox',
  'clerk',
  'resend',
  'svix',
  'zendesk',
  'jira',
  'bitbucket',
  'twitch',
  'discord',
  'woocommerce',
  'postmark',
  'mailchimp',
  'airtable',
  'notion',
  'vercel',
  'sentry',
  'okta',
  'plaid',
  'x',
  'box',
  'netlify',
] as const;
export type SignatureScheme = (typeof signatureSchemes)[number];
