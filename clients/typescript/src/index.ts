export type { components, operations, paths, webhooks } from "./schema.js";
export { TivClient, type Answer, type ClientOptions, type Method, type RequestOptions } from "./client.js";
export { verifyWebhook, WEBHOOK_TYPES, WebhookVerificationError, type WebhookEvent } from "./webhooks.js";
