/**
 * The presets in people's words: the provider's name, and what to paste where in its console. Apart
 * from the table the ingest function carries (presets.ts), since no request needs them.
 */
import type { SignatureScheme } from './security-names.ts';

export interface PresetText {
  /** The provider as its users name it. */
  label: string;
  /** What to paste where, for the console and the docs. */
  setup: string;
}

export const presetTexts: Record<SignatureScheme, PresetText> = {
  'standard-webhooks': {
    label: 'Standard Webhooks',
    setup: 'Give the sender the whsec_ secret Tributary generates (or set the one it issued).',
  },
  github: {
    label: 'GitHub',
    setup:
      'Webhook settings: Payload URL = the ingest URL, Content type application/json, Secret = the signing secret.',
  },
  stripe: {
    label: 'Stripe',
    setup: 'Developers → Webhooks → Add endpoint with the ingest URL; paste its signing secret (whsec_…) here.',
  },
  'hmac-sha256': {
    label: 'Generic HMAC-SHA256',
    setup: 'The sender signs the raw body with HMAC-SHA256 into a header you name, hex or base64.',
  },
  slack: {
    label: 'Slack (Events API)',
    setup:
      'App settings → Basic Information: paste the Signing Secret here; Event Subscriptions → Request URL = the ingest URL.',
  },
  meta: {
    label: 'Meta (WhatsApp, Instagram, Messenger)',
    setup:
      'App Dashboard → Webhooks: Callback URL = the ingest URL, Verify token = the verify_token set here; paste the App Secret here.',
  },
  zoom: {
    label: 'Zoom',
    setup:
      'App Marketplace → your app → Features → Event Subscriptions: Event notification endpoint URL = the ingest URL; paste the Secret Token here.',
  },
  'microsoft-graph': {
    label: 'Microsoft Graph (change notifications)',
    setup:
      'Create the subscription with notificationUrl = the ingest URL and clientState = the signing secret (at most 128 characters).',
  },
  twilio: {
    label: 'Twilio',
    setup: 'Set the webhook URL of the number or service to the ingest URL; paste the account Auth Token here.',
  },
  square: {
    label: 'Square',
    setup:
      'Developer Console → Webhooks → Subscriptions: Notification URL = the ingest URL; paste the Signature key here.',
  },
  hubspot: {
    label: 'HubSpot (signature v3)',
    setup: 'App → Webhooks: Target URL = the ingest URL; paste the app’s Client secret here.',
  },
  linear: {
    label: 'Linear',
    setup: 'Settings → API → Webhooks: URL = the ingest URL; paste the webhook’s signing secret here.',
  },
  paddle: {
    label: 'Paddle Billing',
    setup:
      'Developer Tools → Notifications → New destination: URL = the ingest URL; paste its secret key (pdl_ntfset_…) here.',
  },
  sendgrid: {
    label: 'SendGrid (Event Webhook)',
    setup:
      'Mail Settings → Event Webhook: Post URL = the ingest URL, enable Signed Event Webhook; paste its Verification Key as public_key.',
  },
  shopify: {
    label: 'Shopify',
    setup:
      'Settings → Notifications → Webhooks (or the app’s subscription): URL = the ingest URL; paste the signing secret (the app’s client secret) here.',
  },
  gitlab: {
    label: 'GitLab',
    setup: 'Settings → Webhooks: URL = the ingest URL, Secret token = the signing secret.',
  },
  intercom: {
    label: 'Intercom',
    setup: 'Developer Hub → your app → Webhooks: Endpoint URL = the ingest URL; paste the app’s Client secret here.',
  },
  pagerduty: {
    label: 'PagerDuty (Webhooks v3)',
    setup:
      'Integrations → Generic Webhooks (v3): Webhook URL = the ingest URL; paste the subscription’s signing secret here.',
  },
  typeform: {
    label: 'Typeform',
    setup: 'Connect → Webhooks: Endpoint = the ingest URL, Secret = the signing secret.',
  },
  calendly: {
    label: 'Calendly',
    setup: 'Create the webhook subscription with url = the ingest URL and signing_key = the signing secret.',
  },
  mailgun: {
    label: 'Mailgun',
    setup: 'Sending → Webhooks: URL = the ingest URL; paste the HTTP webhook signing key here.',
  },
  dropbox: {
    label: 'Dropbox',
    setup: 'App Console → your app → Webhooks: add the ingest URL; paste the App secret here.',
  },
  clerk: {
    label: 'Clerk',
    setup: 'Dashboard → Webhooks → Add Endpoint with the ingest URL; paste its Signing Secret (whsec_…) here.',
  },
  resend: {
    label: 'Resend',
    setup: 'Webhooks → Add Webhook with the ingest URL; paste its Signing Secret (whsec_…) here.',
  },
  svix: {
    label: 'Svix',
    setup:
      'Add the ingest URL as an endpoint in the sender’s Svix portal; paste the endpoint’s Signing Secret (whsec_…) here.',
  },
  zendesk: {
    label: 'Zendesk',
    setup:
      'Admin Center → Apps and integrations → Webhooks: Endpoint URL = the ingest URL; paste the webhook’s Signing secret here.',
  },
  jira: {
    label: 'Jira / Atlassian',
    setup: 'System → WebHooks: URL = the ingest URL, Secret = the signing secret.',
  },
  bitbucket: {
    label: 'Bitbucket Cloud',
    setup: 'Repository settings → Webhooks: URL = the ingest URL, Secret = the signing secret.',
  },
  twitch: {
    label: 'Twitch EventSub',
    setup:
      'Create the EventSub subscription with transport.callback = the ingest URL and transport.secret = the signing secret.',
  },
  discord: {
    label: 'Discord (Webhook Events)',
    setup:
      'Developer Portal → your app → Webhooks: Endpoint URL = the ingest URL; paste the app’s Public Key (hex) as public_key.',
  },
  woocommerce: {
    label: 'WooCommerce',
    setup: 'WooCommerce → Settings → Advanced → Webhooks: Delivery URL = the ingest URL, Secret = the signing secret.',
  },
  postmark: {
    label: 'Postmark',
    setup: 'Server → Webhooks: URL = the ingest URL, Basic auth credentials = the signing secret as user:password.',
  },
  mailchimp: {
    label: 'Mailchimp Transactional (Mandrill)',
    setup: 'Settings → Webhooks → Add a webhook: Post to URL = the ingest URL; paste the webhook’s key here.',
  },
  airtable: {
    label: 'Airtable',
    setup: 'Create the webhook with notificationUrl = the ingest URL; paste the macSecretBase64 it returns here.',
  },
  notion: {
    label: 'Notion',
    setup:
      'Integration settings → Webhooks: URL = the ingest URL; Notion posts a verification_token, kept as an event: read it in the events view, paste it in Notion to verify and here as the secret.',
  },
  vercel: {
    label: 'Vercel',
    setup: 'Team Settings → Webhooks: Endpoint = the ingest URL; paste the secret shown once here.',
  },
  sentry: {
    label: 'Sentry',
    setup:
      'Settings → Developer Settings → your integration: Webhook URL = the ingest URL; paste its Client Secret here.',
  },
  okta: {
    label: 'Okta (Event Hooks)',
    setup:
      'Workflow → Event Hooks: URL = the ingest URL, Authentication field = Authorization, Authentication secret = the signing secret; then Verify.',
  },
  plaid: {
    label: 'Plaid',
    setup:
      'Set webhook = the ingest URL on the item; paste the JWK from /webhook_verification_key/get (for the kid in the JWT header) as public_key.',
  },
  x: {
    label: 'X (Account Activity API)',
    setup: 'Register the ingest URL as the webhook; paste the app’s Consumer (API key) Secret here.',
  },
  box: {
    label: 'Box',
    setup:
      'Developer Console → your app → Webhooks: address = the ingest URL; paste the Primary signature key here (rotate to the secondary with rotate-signing-secret).',
  },
  netlify: {
    label: 'Netlify (deploy notifications)',
    setup:
      'Site configuration → Notifications → Outgoing webhook: URL = the ingest URL, JWS secret token = the signing secret.',
  },
};
