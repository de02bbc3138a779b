#!/usr/bin/env python3
"""Writes the sample events in events/ (API Gateway HTTP API payload v2).

Each file is named <expected status>-<case>.json (HTTP functions) or <outcome>-<case>.json
(stream and queue functions: sent, reached (e-mail, SMS and webhook), queued, ignored, expired, delivered,
retried, dropped); a test runs every file through its function
against a local table seeded with the fixtures of infra/devstack (stack.rs), and checks the status.
Run it again after changing a case: python3 infra/make_events.py
"""
import base64
import json
import pathlib
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "events"
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def key(mode: str, account: str, random: str) -> str:
    """A key naming its account (shared/domain/src/secrets.rs): the checksum covers account_random."""
    body = f"{account}_{random}"
    n = zlib.crc32(body.encode())
    out = ""
    for _ in range(6):
        out = B62[n % 62] + out
        n //= 62
    return f"tiv_{mode}_{body}{out}"


DEMO_TEST = key("test", "acct_demo", "DemoTestKeyLocalStackOnly00001")
# Well-formed, naming the demo account, but never issued: the account does not list it.
UNKNOWN = key("test", "acct_demo", "UnknownKeyNeverIssuedAnywhere1")
PENDING = "0b3f1c2e-5d4a-4e8b-9c7d-1a2b3c4d5e6f"
IN_PROGRESS = "1c4f2d3e-6e5b-4f9c-8d8e-2b3c4d5e6f70"
COMPLETED = "2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081"
OTHER = "3e6b4f5a-8a7d-4b1e-8f0a-4d5e6f708192"


def event(method, path, query="", body=None, auth=DEMO_TEST, content_type="application/json"):
    headers = {"host": "abc123.execute-api.us-east-1.amazonaws.com", "user-agent": "curl/8.5.0"}
    if auth is not None:
        headers["authorization"] = f"Bearer {auth}"
    if body is not None and content_type:
        headers["content-type"] = content_type
    ev = {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "abc123",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": "203.0.113.10", "userAgent": "curl/8.5.0"},
            "requestId": "Sample-Request-Id=",
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": "21/Nov/2026:10:15:00 +0000",
            "timeEpoch": 1795256100000,
        },
        "isBase64Encoded": False,
    }
    if query:
        params = {}
        for pair in query.split("&"):
            k, _, v = pair.partition("=")
            params.setdefault(k, v)
        ev["queryStringParameters"] = params
    if body is not None:
        ev["body"] = body if isinstance(body, str) else json.dumps(body)
    return ev


CASES = {
    "create-verification": {
        "201-created": event("POST", "/api/v1/verify", body={
            "tenant_email": "jane.doe+good@example.com", "tenant_name": "Jane Doe",
            "tenant_phone": "+1 555 010 9999", "property_address": "1 Main St, Springfield",
            "monthly_rent": 1500, "webhook_url": "https://hooks.example.com/income"}),
        "201-email-only": event("POST", "/api/v1/verify", body={"tenant_email": "sam@example.com"}),
        "400-missing-tenant-email": event("POST", "/api/v1/verify", body={"tenant_name": "No Email"}),
        "400-invalid-json": event("POST", "/api/v1/verify", body="{\"tenant_email\": "),
        "400-invalid-fields": event("POST", "/api/v1/verify", body={
            "tenant_email": "not-an-address", "monthly_rent": "lots",
            "webhook_url": "http://169.254.169.254/latest"}),
        "401-missing-key": event("POST", "/api/v1/verify", body={"tenant_email": "a@example.com"}, auth=None),
        "401-malformed-key": event("POST", "/api/v1/verify", body={"tenant_email": "a@example.com"},
                                   auth="tiv_test_thisisnotavalidkey"),
        "415-not-json": event("POST", "/api/v1/verify", body="tenant_email=a@example.com",
                              content_type="application/x-www-form-urlencoded"),
    },
    "get-verification": {
        "200-pending": event("GET", "/api/v1/verify", f"verification_id={PENDING}"),
        "200-completed": event("GET", "/api/v1/verify", f"verification_id={COMPLETED}"),
        "400-missing-id": event("GET", "/api/v1/verify"),
        "400-not-a-uuid": event("GET", "/api/v1/verify", "verification_id=12345"),
        "404-unknown-id": event("GET", "/api/v1/verify", "verification_id=9f1d2c3b-4a5e-4f60-8a7b-6c5d4e3f2a10"),
        "404-other-account": event("GET", "/api/v1/verify", f"verification_id={OTHER}"),
        "401-unknown-key": event("GET", "/api/v1/verify", f"verification_id={PENDING}", auth=UNKNOWN),
    },
    "erase-verification-data": {
        "200-completed": event("DELETE", "/api/v1/verify/data", f"verification_id={COMPLETED}"),
        "400-pending": event("DELETE", "/api/v1/verify/data", f"verification_id={PENDING}"),
        "400-missing-id": event("DELETE", "/api/v1/verify/data"),
        "404-other-account": event("DELETE", "/api/v1/verify/data", f"verification_id={OTHER}"),
    },
    "cancel-verification": {
        "200-pending": event("DELETE", "/api/v1/verify", f"verification_id={PENDING}"),
        "200-in-progress": event("DELETE", "/api/v1/verify", f"verification_id={IN_PROGRESS}"),
        "400-completed": event("DELETE", "/api/v1/verify", f"verification_id={COMPLETED}"),
        "400-missing-id": event("DELETE", "/api/v1/verify"),
        "404-other-account": event("DELETE", "/api/v1/verify", f"verification_id={OTHER}"),
    },
    "list-verifications": {
        "200-default": event("GET", "/api/v1/verifications"),
        "200-completed-only": event("GET", "/api/v1/verifications", "status=completed"),
        "200-expired-only": event("GET", "/api/v1/verifications", "status=expired"),
        "200-limit-clamped": event("GET", "/api/v1/verifications", "limit=500&offset=1"),
        "400-limit-not-integer": event("GET", "/api/v1/verifications", "limit=ten"),
        "400-unknown-status": event("GET", "/api/v1/verifications", "status=cancelled"),
        "401-missing-key": event("GET", "/api/v1/verifications", auth=None),
    },
    "get-usage": {
        "200-usage": event("GET", "/api/v1/usage"),
        "401-unknown-key": event("GET", "/api/v1/usage", auth=UNKNOWN),
        "401-not-bearer": event("GET", "/api/v1/usage", auth=None),
    },
    "get-report": {
        "200-completed": event("GET", "/api/v1/verify/report", f"verification_id={COMPLETED}"),
        "409-pending": event("GET", "/api/v1/verify/report", f"verification_id={PENDING}"),
        "400-missing-id": event("GET", "/api/v1/verify/report"),
        "404-other-account": event("GET", "/api/v1/verify/report", f"verification_id={OTHER}"),
        "401-unknown-key": event("GET", "/api/v1/verify/report", f"verification_id={COMPLETED}", auth=UNKNOWN),
    },
    "list-documents": {
        "200-in-progress": event("GET", "/api/v1/verify/documents", f"verification_id={IN_PROGRESS}"),
        "400-missing-id": event("GET", "/api/v1/verify/documents"),
        "404-other-account": event("GET", "/api/v1/verify/documents", f"verification_id={OTHER}"),
    },
}

CASES["resend-verification"] = {
    "202-pending": event("POST", "/api/v1/verify/resend", f"verification_id={PENDING}"),
    "202-in-progress": event("POST", "/api/v1/verify/resend", f"verification_id={IN_PROGRESS}"),
    "400-completed": event("POST", "/api/v1/verify/resend", f"verification_id={COMPLETED}"),
    "400-missing-id": event("POST", "/api/v1/verify/resend"),
    "404-other-account": event("POST", "/api/v1/verify/resend", f"verification_id={OTHER}"),
    "401-unknown-key": event("POST", "/api/v1/verify/resend", f"verification_id={PENDING}", auth=UNKNOWN),
}
COMPLETED_EVENT = "msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_completed"
OTHER_EVENT = "msg_3e6b4f5a8a7d4b1e8f0a4d5e6f708192_in_progress"
CASES["list-webhook-deliveries"] = {
    "200-completed": event("GET", "/api/v1/webhooks/deliveries", f"verification_id={COMPLETED}"),
    "200-none-yet": event("GET", "/api/v1/webhooks/deliveries", f"verification_id={PENDING}&limit=5&offset=0"),
    "400-limit-not-integer": event("GET", "/api/v1/webhooks/deliveries", f"verification_id={COMPLETED}&limit=ten"),
    "400-missing-id": event("GET", "/api/v1/webhooks/deliveries"),
    "404-other-account": event("GET", "/api/v1/webhooks/deliveries", f"verification_id={OTHER}"),
    "401-missing-key": event("GET", "/api/v1/webhooks/deliveries", f"verification_id={COMPLETED}", auth=None),
}
CASES["redeliver-webhook"] = {
    "202-completed-event": event("POST", "/api/v1/webhooks/redeliver", f"event_id={COMPLETED_EVENT}"),
    "400-missing-event-id": event("POST", "/api/v1/webhooks/redeliver"),
    "400-invalid-event-id": event("POST", "/api/v1/webhooks/redeliver", "event_id=msg%2F..%2Fx"),
    "404-other-account": event("POST", "/api/v1/webhooks/redeliver", f"event_id={OTHER_EVENT}"),
    "404-unknown-event": event("POST", "/api/v1/webhooks/redeliver", "event_id=msg_9f1d2c3b4a5e4f608a7b6c5d4e3f2a10_completed"),
    "409-no-webhook-url": event("POST", "/api/v1/webhooks/redeliver", "event_id=msg_0b3f1c2e5d4a4e8b9c7d1a2b3c4d5e6f_in_progress"),
    "401-unknown-key": event("POST", "/api/v1/webhooks/redeliver", f"event_id={COMPLETED_EVENT}", auth=UNKNOWN),
}

TOKEN = "SampleLinkTokenForLocalFixturesOnly-0123456789"
CONSENTED = "4f7c5a6b-9b8e-4c2f-9a1b-5e6f708192a3"
EXPIRED = "5a8d6b7c-0c9f-4d3a-8b2c-6f708192a3b4"
CANCELLED = "6b9e7c8d-1d0a-4e4b-9c3d-708192a3b4c5"
FAILED = "7c0f8d9e-2e1b-4f5c-8d4e-8192a3b4c5d6"


def page(method, vid, form=None, token=TOKEN, suffix=""):
    path = f"/t/{vid}/{token}{suffix}"
    ev = event(method, path, body=form, auth=None,
               content_type="application/x-www-form-urlencoded" if form else None)
    ev["routeKey"] = ev["requestContext"]["routeKey"] = f"{method} /t/{{verification_id}}/{{token}}{suffix}"
    ev["pathParameters"] = {"verification_id": vid, "token": token}
    if form:
        ev["headers"]["content-type"] = "application/x-www-form-urlencoded"
    return ev


CASES["tenant-portal"] = {
    "200-open-pending": page("GET", PENDING),
    "200-completed": page("GET", COMPLETED),
    "200-failed": page("GET", FAILED),
    "410-expired": page("GET", EXPIRED),
    "410-cancelled": page("GET", CANCELLED),
    "404-wrong-token": page("GET", PENDING, token="not-the-token"),
    "303-consent": page("POST", IN_PROGRESS, "action=consent&agree=yes"),
    "400-consent-not-ticked": page("POST", IN_PROGRESS, "action=consent"),
    "303-connect-good": page("POST", CONSENTED, "action=connect&scenario=good"),
    "200-completed-report-pdf": page("GET", COMPLETED, suffix="/report.pdf"),
    "404-pending-report-pdf": page("GET", PENDING, suffix="/report.pdf"),
    "303-completed-note": page("POST", COMPLETED, "action=note&note=New+job+from+May"),
    "400-completed-note-empty": page("POST", COMPLETED, "action=note&note="),
}


def provider_webhook(provider, body, signature=None):
    ev = event("POST", f"/webhooks/providers/{provider}", query=f"verification_id={IN_PROGRESS}",
               body=body, auth=None)
    if signature is not None:
        ev["headers"]["plaid-verification"] = signature
    return ev


# Plaid's CHECK_REPORT_READY (https://plaid.com/docs/api/products/check/), unsigned or signed
# with alg "none": refused before any key is fetched. A good signature is minutes-fresh, so the
# signed cases are the devstack's tests (portal::plaid_check), not sample events.
PLAID_READY = json.dumps({"webhook_type": "CHECK_REPORT", "webhook_code": "CHECK_REPORT_READY",
                          "user_id": "usr_8c3ZbDBfXwJbV7Bq6sPWzRm2", "environment": "sandbox"})
ALG_NONE = (base64.urlsafe_b64encode(b'{"alg":"none","kid":"k1","typ":"JWT"}').rstrip(b"=").decode()
            + "." + base64.urlsafe_b64encode(b'{"iat":1795256100}').rstrip(b"=").decode() + ".")
CASES["provider-webhooks"] = {
    "401-unsigned": provider_webhook("plaid", PLAID_READY),
    "401-alg-none": provider_webhook("plaid", PLAID_READY, ALG_NONE),
    "401-not-a-jwt": provider_webhook("plaid", PLAID_READY, "not.a-jwt"),
}


def ddb(value):
    """A Python value as DynamoDB JSON."""
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (int, float)):
        return {"N": str(value)}
    if isinstance(value, dict):
        return {"M": {k: ddb(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"L": [ddb(v) for v in value]}
    if value is None:
        return {"NULL": True}
    return {"S": value}


def verification_image(vid, status, **extra):
    item = {
        "PK": f"VERIFICATION#{vid}", "SK": "VERIFICATION",
        "GSI1PK": "OWNER#acct_demo#test", "GSI1SK": f"2026-11-21T10:00:00.000Z#{vid}",
        "GSI2PK": f"OWNER#acct_demo#test#{status}", "GSI2SK": f"2026-11-21T10:00:00.000Z#{vid}",
        "verification_id": vid, "account_id": "acct_demo", "mode": "test", "status": status,
        "tenant_email": "fixture.tenant+good@example.com", "tenant_name": "Fixture Tenant",
        "property_address": "1 Sample Street, Springfield", "monthly_rent": 1500,
        "created_at": "2026-11-21T10:00:00.000Z", "expires_at": "2026-11-28T10:00:00.000Z",
    }
    item.update(extra)
    return {k: ddb(v) for k, v in item.items()}


def stream(name, keys, new=None, old=None, seq="100000000000000000001", ttl=False):
    record = {
        "eventID": "c4ca4238a0b923820dcc509a6f75849b",
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/tiv-local-table/stream/2026-11-21T00:00:00.000",
        "dynamodb": {
            "ApproximateCreationDateTime": 1795256100,
            "Keys": keys,
            "SequenceNumber": seq,
            "SizeBytes": 512,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
    }
    if new is not None:
        record["dynamodb"]["NewImage"] = new
    if old is not None:
        record["dynamodb"]["OldImage"] = old
    if ttl:
        record["userIdentity"] = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    return {"Records": [record]}


def vkeys(vid, sk="VERIFICATION"):
    return {"PK": {"S": f"VERIFICATION#{vid}"}, "SK": {"S": sk}}


def marker_keys(vid, sk):
    """An expiry (EXPIRY) or erasure (ERASURE) marker's keys: a partition apart from the verification's."""
    return {"PK": {"S": f"MARKER#{vid}"}, "SK": {"S": sk}}


REPORT = {
    "total_monthly_income": 5200.0,
    "income_sources": [{
        "name": "Acme Corporation payroll", "income_category": "SALARY",
        "pay_frequency": "BIWEEKLY", "monthly_income": 5200.0, "method": "bank",
        "basis": "mean of 7 payments in the 90 days to 2026-11-21: 2,400.00 paid every two weeks",
        "twelve_month_average": 5200.0, "payment_count": 26, "last_payment_date": "2026-11-18"}],
    "verification_method": "bank", "confidence_score": 0.85,
    "rent_to_income_ratio": 0.2885, "passes_3x_rule": True,
    "as_of": "2026-11-21", "excluded_sources": [],
    "confidence_factors": [
        {"factor": "method", "effect": 0.9,
         "detail": "bank 0.90, payroll 0.95, documents 0.70, weighted by income"},
        {"factor": "provider", "effect": 0.95, "detail": "the provider's own confidence, 0.95"}],
}
HOOK = "http://127.0.0.1:3001/webhooks"
marker = {**marker_keys(EXPIRED, "EXPIRY"),
          "verification_id": {"S": EXPIRED}, "ttl": {"N": "1795256100"}}

CASES["publish-events"] = {
    # With a number: the reach pass texts the invite and creates the reminder schedules. The
    # link expires far ahead: an expired link is never invited, and the sample must work whenever
    # it is replayed (the fixture dates above are fixed).
    "sent-email-on-insert": stream("INSERT", vkeys(PENDING), new=verification_image(
        PENDING, "pending", tenant_phone="(201) 555-0142", sms_phone="+12015550142",
        expires_at="2099-11-28T10:00:00.000Z")),
    "queued-webhook-on-completion": stream(
        "MODIFY", vkeys(IN_PROGRESS),
        old=verification_image(IN_PROGRESS, "in_progress", webhook_url=HOOK, started_at="2026-11-21T10:05:00.000Z"),
        new=verification_image(IN_PROGRESS, "completed", webhook_url=HOOK, started_at="2026-11-21T10:05:00.000Z",
                               completed_at="2026-11-21T10:09:00.000Z", income_report=REPORT)),
    "ignored-status-unchanged": stream(
        "MODIFY", vkeys(PENDING),
        old=verification_image(PENDING, "pending", webhook_url=HOOK),
        new=verification_image(PENDING, "pending", webhook_url=HOOK, token_hashes=["ab" * 32])),
    "ignored-marker-insert": stream("INSERT", marker_keys(EXPIRED, "EXPIRY"), new=marker),
}

def webhook_event_image(redeliveries):
    """A stored webhook event (domain::webhook_log::StoredWebhookEvent) as the table holds it."""
    event_id = "msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_completed"
    item = {
        "PK": f"WEBHOOK_EVENT#{event_id}", "SK": "WEBHOOK_EVENT",
        "message": {"webhook_id": event_id, "account_id": "acct_demo", "url": HOOK,
                    "body": json.dumps({"type": "verification.completed", "timestamp": "2026-11-21T10:09:00.000Z",
                                        "data": {"verification_id": COMPLETED, "status": "completed"}})},
        "event_type": "verification.completed", "verification_id": COMPLETED,
        "stored_at": "2026-11-21T10:09:01.000Z", "redeliveries": redeliveries, "ttl": 1797848941,
    }
    return {k: ddb(v) for k, v in item.items()}


WEBHOOK_EVENT_KEYS = {"PK": {"S": "WEBHOOK_EVENT#msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_completed"},
                      "SK": {"S": "WEBHOOK_EVENT"}}
CASES["publish-events"]["queued-webhook-redelivery"] = stream(
    "MODIFY", WEBHOOK_EVENT_KEYS, old=webhook_event_image(0), new=webhook_event_image(1))
CASES["publish-events"]["ignored-webhook-event-insert"] = stream(
    "INSERT", WEBHOOK_EVENT_KEYS, new=webhook_event_image(0))

erasure_marker = {**marker_keys(COMPLETED, "ERASURE"),
                  "verification_id": {"S": COMPLETED}, "ttl": {"N": "1795256100"}}
CASES["expire-verifications"] = {
    "expired-ttl-remove": stream("REMOVE", marker_keys(EXPIRED, "EXPIRY"), old=marker, ttl=True),
    "ignored-user-remove": stream("REMOVE", marker_keys(EXPIRED, "EXPIRY"), old=marker),
    # The completed fixture closed just now: not due under the default retention, armed again.
    "armed-erasure-not-due": stream("REMOVE", marker_keys(COMPLETED, "ERASURE"), old=erasure_marker, ttl=True),
}

# The personal data of a completed verification erased: `verification.erased` is queued.
ERASED_FIELDS = {"webhook_url": HOOK, "completed_at": "2026-11-21T10:09:00.000Z"}
CASES["publish-events"]["queued-webhook-on-erasure"] = stream(
    "MODIFY", vkeys(COMPLETED),
    old=verification_image(COMPLETED, "completed", **ERASED_FIELDS, income_report=REPORT),
    new={k: v for k, v in verification_image(
        COMPLETED, "completed", **ERASED_FIELDS, tenant_email="", message_links={},
        erased_at="2026-11-21T10:20:00.000Z").items()
        if k not in ("tenant_name", "property_address", "monthly_rent")})

# The landlord's review recorded on a report from documents: `verification.reviewed` is queued.
DOCUMENT_REPORT = dict(REPORT, verification_method="document", documents=[], needs_review=True)
REVIEWED = dict(DOCUMENT_REPORT, document_review={
    "decision": "rejected", "note": "Net pay on the March stub was edited.",
    "reviewed_at": "2026-11-21T10:30:00.000Z"})
CASES["publish-events"]["queued-webhook-on-review"] = stream(
    "MODIFY", vkeys(COMPLETED),
    old=verification_image(COMPLETED, "completed", **ERASED_FIELDS, income_report=DOCUMENT_REPORT),
    new=verification_image(COMPLETED, "completed", **ERASED_FIELDS, income_report=REVIEWED))


def sqs(webhook_ids):
    """Webhook queue messages: each names a stored event (the body stays in the table)."""
    records = []
    for i, webhook_id in enumerate(webhook_ids):
        records.append({
            "messageId": f"059f36b4-87a3-44ab-83d2-66197521021{i}",
            "receiptHandle": f"AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a{i}",
            "body": json.dumps({"webhook_id": webhook_id, "account_id": "acct_demo"}),
            "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795256100000",
                           "SenderId": "AIDAIENQZJOLO23YVJ4VO", "ApproximateFirstReceiveTimestamp": "1795256100001"},
            "messageAttributes": {},
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:tiv-local-webhooks",
            "awsRegion": "us-east-1",
        })
    return {"Records": records}


# The local stack stores an event under each of these ids, to its receiver, a closed port and a
# private address, and one whose verification is erased.
CASES["deliver-webhook"] = {
    "delivered-one-message": sqs(["msg_sample_0"]),
    "retried-receiver-down": sqs(["msg_sample_down"]),
    "dropped-private-address": sqs(["msg_sample_private"]),
    "dropped-event-erased": sqs(["msg_sample_erased"]),
}

CANCELLED = "6b9e7c8d-1d0a-4e4b-9c3d-708192a3b4c5"


def retry(work):
    """A retry-queue message (shared::outbox::RetryMessage) as retry-events receives it."""
    return {"Records": [{
        "messageId": "7a1c2e4f-0b3d-4c5e-9f60-1a2b3c4d5e6f",
        "receiptHandle": "AQEBretrySampleReceiptHandle0",
        "body": json.dumps({"work": work, "first_failed_at": "2026-11-21T10:00:00.000Z"}),
        "attributes": {"ApproximateReceiveCount": "2", "SentTimestamp": "1795256100000",
                       "SenderId": "AIDAIENQZJOLO23YVJ4VO", "ApproximateFirstReceiveTimestamp": "1795256100001"},
        "messageAttributes": {},
        "md5OfBody": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:tiv-local-retries",
        "awsRegion": "us-east-1",
    }]}


CASES["retry-events"] = {
    "sent-tenant-email-retried": retry({"kind": "tenant_email", "verification_id": PENDING}),
    # A webhook whose event could not be stored: named by keys, built from the table at the retry.
    "queued-webhook-retried": retry({"kind": "webhook", "of": {
        "subject": "verification", "verification_id": IN_PROGRESS, "event": "in_progress"}}),
    "ignored-email-of-cancelled": retry({"kind": "tenant_email", "verification_id": CANCELLED}),
    # The in-progress fixture has a number: round 1's resent invite SMS, texted again.
    "texted-resent-sms-retried": retry({"kind": "resent_sms", "verification_id": IN_PROGRESS, "round": 1}),
    "ignored-invite-sms-of-cancelled": retry({"kind": "invite_sms", "verification_id": CANCELLED}),
    "scheduled-reminders-retried": retry({"kind": "reminder_schedules", "verification_id": PENDING}),
}

def reminder(vid, point="72h"):
    """What a reminder schedule hands send-reminders (EventBridge Scheduler's target input)."""
    return {"verification_id": vid, "reminder": point}


CASES["send-reminders"] = {
    "sent-reminder-of-pending": reminder(PENDING),
    # The in-progress fixture has a number and a webhook URL: e-mail, SMS and webhook.
    "reached-reminder-of-in-progress": reminder(IN_PROGRESS, "24h"),
    "ignored-reminder-of-completed": reminder(COMPLETED),
    "ignored-reminder-of-expired": reminder(EXPIRED, "24h"),
    "ignored-reminder-of-cancelled": reminder(CANCELLED),
}
HOUSEHOLD_DECIDED = "8d1a9e0f-3f2c-8405-9e5f-92a3b4c5d6e7"
HOUSEHOLD_OPEN = "9e2b0f1a-4a3d-8416-8f6a-a3b4c5d6e7f8"
HOUSEHOLD_OTHER = "a0c31a2b-5b4e-8417-9a7b-b4c5d6e7f809"
HOUSEHOLD_BODY = {
    "property_address": "2 Shared House Lane, Springfield", "monthly_rent": 1800,
    "webhook_url": "https://hooks.example.com/income",
    "members": [
        {"tenant_email": "alex+good@example.com", "tenant_name": "Alex Flatmate", "role": "applicant"},
        {"tenant_email": "sam+good@example.com", "tenant_name": "Sam Flatmate", "role": "applicant"},
    ],
}
CASES["create-household"] = {
    "201-two-members": event("POST", "/api/v1/households", body=HOUSEHOLD_BODY),
    "201-applicant-and-guarantor": event("POST", "/api/v1/households", body={
        "property_address": "3 Campus Road, Springfield", "monthly_rent": 900,
        "rent_subsidy_monthly": 100, "income_multiple": 2.5, "guarantor_multiple": 4,
        "members": [
            {"tenant_email": "student+lowincome@example.com", "role": "applicant"},
            {"tenant_email": "parent+good@example.com", "tenant_phone": "+1 555 010 2222", "role": "guarantor"},
        ]}),
    "400-duplicate-emails": event("POST", "/api/v1/households", body={
        "monthly_rent": 1200, "members": [
            {"tenant_email": "Twin@example.com", "role": "applicant"},
            {"tenant_email": "twin@EXAMPLE.com", "role": "guarantor"}]}),
    "400-no-applicant": event("POST", "/api/v1/households", body={
        "monthly_rent": 1200, "members": [{"tenant_email": "g@example.com", "role": "guarantor"}]}),
    "401-missing-key": event("POST", "/api/v1/households", body=HOUSEHOLD_BODY, auth=None),
}
CASES["get-household"] = {
    "200-decided": event("GET", "/api/v1/households", f"household_id={HOUSEHOLD_DECIDED}"),
    "200-open": event("GET", "/api/v1/households", f"household_id={HOUSEHOLD_OPEN}"),
    "400-missing-id": event("GET", "/api/v1/households"),
    "404-other-account": event("GET", "/api/v1/households", f"household_id={HOUSEHOLD_OTHER}"),
}
CASES["cancel-household"] = {
    "200-open-members": event("DELETE", "/api/v1/households", f"household_id={HOUSEHOLD_OPEN}"),
    "400-not-a-uuid": event("DELETE", "/api/v1/households", "household_id=12345"),
    "404-other-account": event("DELETE", "/api/v1/households", f"household_id={HOUSEHOLD_OTHER}"),
}
CASES["list-verifications"]["200-household-members"] = event(
    "GET", "/api/v1/verifications", f"household_id={HOUSEHOLD_DECIDED}")


def household_image(decision=None):
    item = {
        "PK": f"HOUSEHOLD#{HOUSEHOLD_DECIDED}", "SK": "HOUSEHOLD",
        "household_id": HOUSEHOLD_DECIDED, "account_id": "acct_demo", "mode": "test",
        "created_at": "2026-11-21T10:00:00.000Z", "property_address": "2 Shared House Lane, Springfield",
        "monthly_rent": 1800, "webhook_url": HOOK,
        "members": [{"verification_id": PENDING, "role": "applicant"},
                    {"verification_id": COMPLETED, "role": "guarantor"}],
    }
    if decision is not None:
        item["decision"] = decision
        item["decided_at"] = "2026-11-21T10:09:00.000Z"
    return {k: ddb(v) for k, v in item.items()}


DECISION = {
    "monthly_rent": 1800.0, "rent_subsidy_monthly": 0.0, "tenant_portion": 1800.0,
    "applicants_monthly_income": 6000.0, "income_multiple": 3.0, "income_required": 5400.0,
    "applicants_meet_requirement": True, "guarantor_multiple": 5.0, "guarantor_income_required": 9000.0,
    "guarantor_meets_requirement": False, "meets_requirement": True,
    "members": [{"verification_id": PENDING, "role": "applicant", "status": "completed", "monthly_income": 6000.0},
                {"verification_id": COMPLETED, "role": "guarantor", "status": "failed"}],
    "made_without": [{"verification_id": COMPLETED, "role": "guarantor", "status": "failed"}],
    "rule": "The applicants' combined income 6,000.00 is at least 3 x the rent 1,800.00. "
            "There is no completed guarantor. The household meets the requirement. "
            "Decided without 1 member (guarantor failed).",
}
CASES["publish-events"]["queued-webhook-household-completed"] = stream(
    "MODIFY", {"PK": {"S": f"HOUSEHOLD#{HOUSEHOLD_DECIDED}"}, "SK": {"S": "HOUSEHOLD"}},
    old=household_image(), new=household_image(DECISION))


def s3_notification(records):
    """The documents queue's message: the bucket's notification, as S3 sends it to SQS."""
    return {"Records": [{
        "messageId": f"7a1c2e3d-4f5a-4b6c-8d7e-9f0a1b2c3d4{i}",
        "receiptHandle": f"AQEBdocumentsSampleHandle{i}",
        "body": json.dumps(body),
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795256100000",
                       "SenderId": "AIDAJHIPRHEMV73VRJEBU", "ApproximateFirstReceiveTimestamp": "1795256100001"},
        "messageAttributes": {},
        "md5OfBody": "0f2d6c3e1b9a8f7e6d5c4b3a29180716",
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:tiv-local-documents",
        "awsRegion": "us-east-1",
    } for i, body in enumerate(records)]}


def object_created(verification, document, size, etag):
    return {"Records": [{
        "eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "us-east-1",
        "eventTime": "2026-11-21T10:07:00.000Z", "eventName": "ObjectCreated:Post",
        "s3": {"s3SchemaVersion": "1.0", "configurationId": "uploads",
               "bucket": {"name": "tiv-local-documents", "arn": "arn:aws:s3:::tiv-local-documents"},
               "object": {"key": f"uploads/{verification}/{document}", "size": size, "eTag": etag,
                          "sequencer": "0065A1B2C3D4E5F601"}},
    }]}


# The events test gives the completed fixture a report from documents before the 200 case runs;
# the other cases see its report from a bank.
REVIEW = {"decision": "accepted", "note": "Stubs match the employer's letter; checked by phone."}
CASES["review-documents"] = {
    "200-accepted": event("POST", "/api/v1/verify/review", f"verification_id={COMPLETED}", body=REVIEW),
    "409-not-from-documents": event("POST", "/api/v1/verify/review", f"verification_id={COMPLETED}", body=REVIEW),
    "409-pending": event("POST", "/api/v1/verify/review", f"verification_id={PENDING}", body=REVIEW),
    "400-missing-note": event("POST", "/api/v1/verify/review", f"verification_id={COMPLETED}",
                              body={"decision": "rejected"}),
    "404-other-account": event("POST", "/api/v1/verify/review", f"verification_id={OTHER}", body=REVIEW),
}

# The events test puts a small PNG (a photo: undetermined, the tenant types its figures) at
# uploads/<in-progress fixture>/sampledoc1 before it runs the first case.
CASES["analyze-document"] = {
    "analysed-photo-upload": s3_notification([object_created(IN_PROGRESS, "sampledoc1", 67, "9d3f2c1b0a")]),
    "ignored-s3-test-event": s3_notification([{"Service": "Amazon S3", "Event": "s3:TestEvent",
                                               "Time": "2026-11-21T10:00:00.000Z", "Bucket": "tiv-local-documents"}]),
}

if __name__ == "__main__":
    CASES["get-usage"]["401-not-bearer"]["headers"]["authorization"] = "Basic dXNlcjpwYXNz"
    for function, cases in CASES.items():
        folder = ROOT / function
        folder.mkdir(parents=True, exist_ok=True)
        for name, ev in cases.items():
            (folder / f"{name}.json").write_text(json.dumps(ev, indent=2) + "\n")
    print(f"wrote {sum(len(c) for c in CASES.values())} events under {ROOT}")
