// The thin client and the webhook helper against a running local stack: run by `make test`
// through infra/clients.sh, inside infra/stack.sh (TIV_BASE_URL, TIV_API_KEY, TIV_HOOK_PORT,
// TIV_WEBHOOK_SECRET).
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { after, before, test } from "node:test";

import { TivClient, verifyWebhook, WebhookVerificationError } from "../src/index.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through \`bash infra/clients.sh test\` (a local stack)`);
  return value;
}

const api = new TivClient({ baseUrl: env("TIV_BASE_URL"), apiKey: env("TIV_API_KEY") });
type Hook = { headers: IncomingHttpHeaders; body: Buffer };
const received: Hook[] = [];
// Who waits for which webhook-id: resolved by the receiver as the request arrives (no timer poll).
const waiting = new Map<string, (hook: Hook) => void>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const hook = { headers: req.headers, body: Buffer.concat(chunks) };
    received.push(hook);
    res.writeHead(200).end();
    const id = String(req.headers["webhook-id"]);
    waiting.get(id)?.(hook);
    waiting.delete(id);
  });
});
const hookPort = Number(env("TIV_HOOK_PORT"));
const hookUrl = `http://127.0.0.1:${hookPort}/hooks`;

before(() => new Promise<void>((done) => receiver.listen(hookPort, "127.0.0.1", done)));
after(() => new Promise<void>((done) => receiver.close(() => done())));

async function webhook(id: string, suffix: string): Promise<Hook> {
  const wanted = `msg_${id.replaceAll("-", "")}_${suffix}`;
  const hit = received.find((r) => r.headers["webhook-id"] === wanted);
  if (hit) return hit;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      new Promise<Hook>((resolve) => waiting.set(wanted, resolve)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the webhook ${suffix} did not arrive within 60 s`)), 60_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    waiting.delete(wanted);
  }
}

/** What the tenant does on the page behind the link: consent, then the sandbox's `good` income. */
async function tenantSteps(link: string): Promise<void> {
  for (const form of ["action=consent&agree=yes", "action=connect&scenario=good"]) {
    const r = await fetch(link, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual",
    });
    assert.equal(r.status, 303);
  }
}

test("a verification from create to its report, with its signed webhooks", async () => {
  const created = await api.request("post", "/api/v1/verify", {
    body: { tenant_email: "tess+good@example.com", monthly_rent: 1200, webhook_url: hookUrl },
    headers: { "Idempotency-Key": `ts-${crypto.randomUUID()}` },
  });
  assert.equal(created.status, 201);
  if (created.status !== 201) return;
  const id = created.data.data.verification_id;
  assert.equal(created.data.data.status, "pending");

  const got = await api.request("get", "/api/v1/verify", { query: { verification_id: id } });
  assert.equal(got.status === 200 && got.data.data.status, "pending");
  const listed = await api.request("get", "/api/v1/verifications", { query: { status: "pending", limit: 100 } });
  assert.ok(listed.status === 200 && listed.data.data.some((v) => v.id === id));

  await tenantSteps(created.data.data.verification_url);
  const done = await api.request("get", "/api/v1/verify", { query: { verification_id: id } });
  assert.equal(done.status, 200);
  if (done.status !== 200) return;
  assert.equal(done.data.data.status, "completed");
  const pdf = await api.request("get", "/api/v1/verify/report", { query: { verification_id: id } });
  assert.ok(pdf.status === 200 && Buffer.from(pdf.data).subarray(0, 5).toString() === "%PDF-");

  const cancel = await api.request("delete", "/api/v1/verify", { query: { verification_id: id } });
  assert.ok(cancel.status === 400 && cancel.data.code === "verification_not_cancellable");
  const resend = await api.request("post", "/api/v1/verify/resend", { query: { verification_id: id } });
  assert.ok(resend.status === 400 && resend.data.code === "verification_not_resendable");

  const secret = env("TIV_WEBHOOK_SECRET");
  const hook = await webhook(id, "completed");
  const event = verifyWebhook(secret, hook.body, hook.headers as Record<string, string>);
  assert.equal(event.type, "verification.completed");
  if (event.type === "verification.completed") {
    assert.equal(event.data.verification_id, id);
    assert.equal(event.data.income_report?.total_monthly_income, done.data.data.income_report?.total_monthly_income);
  }
  assert.throws(
    () => verifyWebhook(secret, Buffer.concat([hook.body, Buffer.from(" ")]), hook.headers as Record<string, string>),
    WebhookVerificationError,
  );

  const log = await api.request("get", "/api/v1/webhooks/deliveries", { query: { subject: { verification_id: id } } });
  assert.equal(log.status, 200);
  if (log.status === 200) assert.ok(log.data.data.some((a) => a.event_type === "verification.completed"));
});

test("a household, usage, and documented errors", async () => {
  const created = await api.request("post", "/api/v1/households", {
    body: {
      monthly_rent: 1600,
      members: [
        { tenant_email: "kim+good@example.com", role: "applicant" },
        { tenant_email: "lee+good@example.com", role: "applicant" },
      ],
    },
  });
  assert.equal(created.status, 201);
  if (created.status !== 201) return;
  const household = created.data.data.household_id;
  const got = await api.request("get", "/api/v1/households", { query: { household_id: household } });
  assert.ok(got.status === 200 && got.data.data.status === "open" && got.data.data.members.length === 2);
  const cancelled = await api.request("delete", "/api/v1/households", { query: { household_id: household } });
  assert.ok(cancelled.status === 200 && cancelled.data.data.members.every((m) => m.status === "cancelled"));

  const usage = await api.request("get", "/api/v1/usage", {});
  assert.ok(usage.status === 200 && usage.data.data.api.requests_remaining < usage.data.data.api.requests_limit);

  const unknown = crypto.randomUUID();
  const missing = await api.request("get", "/api/v1/verify", { query: { verification_id: unknown } });
  assert.ok(missing.status === 404 && missing.data.code === "not_found");
  const both = await api.request("get", "/api/v1/webhooks/deliveries", {
    query: { subject: { verification_id: unknown, household_id: unknown } },
  });
  assert.ok(both.status === 400 && both.data.details[0]?.field === "household_id");
  const noApplicant = await api.request("post", "/api/v1/households", {
    body: { monthly_rent: 900, members: [{ tenant_email: "g@example.com", role: "guarantor" }] },
  });
  assert.ok(noApplicant.status === 400 && noApplicant.data.details.some((d) => d.code === "applicant_required"));
  const stranger = new TivClient({ baseUrl: env("TIV_BASE_URL"), apiKey: "tiv_test_" + "0".repeat(36) });
  const denied = await stranger.request("get", "/api/v1/usage", {});
  assert.ok(denied.status === 401 && denied.data.code === "invalid_api_key");
});

// Compile-time checks (never run): tsc fails the build if any of these calls is accepted.
export function typeChecks(): void {
  // @ts-expect-error verification_id is required
  void api.request("get", "/api/v1/verify", { query: {} });
  // @ts-expect-error no such path
  void api.request("get", "/api/v1/nope", {});
  // @ts-expect-error /api/v1/usage serves no POST
  void api.request("post", "/api/v1/usage", {});
  // @ts-expect-error a create needs tenant_email
  void api.request("post", "/api/v1/verify", { body: { tenant_name: "x" } });
}
