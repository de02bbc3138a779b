// Verifies a webhook of the service (Standard Webhooks signatures, keyed with the account's
// `whsec_...` secret) and returns its payload, typed by the `webhooks` of infra/openapi.yaml: a
// union discriminated by `type`.
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { webhooks } from "./schema.js";

export { WebhookVerificationError };

type Payload<K extends keyof webhooks> =
  Exclude<webhooks[K]["post"], undefined> extends { requestBody: { content: { "application/json": infer B } } }
    ? B
    : never;
/** Every event the service sends, by its `type`. */
export type WebhookEvent = { [K in keyof webhooks]: Payload<K> }[keyof webhooks];

/** The webhook types of the file (checked below to be all of them). */
export const WEBHOOK_TYPES = [
  "verification.in_progress",
  "verification.completed",
  "verification.failed",
  "verification.expired",
  "verification.cancelled",
  "verification.erased",
  "verification.reminder_sent",
  "verification.resent",
  "verification.reviewed",
  "household.completed",
] as const satisfies readonly (keyof webhooks)[];
type Unlisted = Exclude<keyof webhooks, (typeof WEBHOOK_TYPES)[number]>;
export const EVERY_TYPE_LISTED: [Unlisted] extends [never] ? true : Unlisted = true;

/**
 * The event of a signed delivery. `body` is the raw request body (the signature covers its exact
 * bytes), `headers` the request's headers. Throws `WebhookVerificationError` when the signature
 * or the timestamp (5 minutes either way) does not verify, or the payload has no known `type`.
 */
export function verifyWebhook(
  secret: string,
  body: string | Buffer,
  headers: Headers | Record<string, string | string[] | undefined>,
): WebhookEvent {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  const payload = new Webhook(secret).verify(body, flat) as { type?: unknown } | null;
  const known: readonly unknown[] = WEBHOOK_TYPES;
  if (payload === null || typeof payload !== "object" || !known.includes(payload.type)) {
    throw new WebhookVerificationError("the payload is no webhook event of a known type");
  }
  return payload as WebhookEvent;
}
