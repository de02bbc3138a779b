#!/usr/bin/env python3
"""Writes the sample events in events/ (API Gateway HTTP API payload v2).

Each file is named <expected status>-<case>.json; a test runs every file through its function
against a local table seeded with the fixtures of infra/devstack (stack.rs), and checks the status.
Run it again after changing a case: python3 infra/make_events.py
"""
import json
import pathlib
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "events"
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def key(mode: str, random: str) -> str:
    n = zlib.crc32(random.encode())
    out = ""
    for _ in range(6):
        out = B62[n % 62] + out
        n //= 62
    return f"tiv_{mode}_{random}{out}"


DEMO_TEST = key("test", "DemoTestKeyLocalStackOnly00001")
UNKNOWN = key("test", "UnknownKeyNeverIssuedAnywhere1")
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
}

if __name__ == "__main__":
    CASES["get-usage"]["401-not-bearer"]["headers"]["authorization"] = "Basic dXNlcjpwYXNz"
    for function, cases in CASES.items():
        folder = ROOT / function
        folder.mkdir(parents=True, exist_ok=True)
        for name, ev in cases.items():
            (folder / f"{name}.json").write_text(json.dumps(ev, indent=2) + "\n")
    print(f"wrote {sum(len(c) for c in CASES.values())} events under {ROOT}")
