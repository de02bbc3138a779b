"""The generated client and the webhook helper against a running local stack.

Run by `make test` through infra/clients.sh, inside infra/stack.sh, which sets TIV_BASE_URL,
TIV_API_KEY, TIV_HOOK_PORT (a port the stack may deliver webhooks to) and TIV_WEBHOOK_SECRET.
Every documented answer a test provokes is read through the generated client, so each is parsed
into the model the file gives that status.
"""

from __future__ import annotations

import http.server
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest
from ruamel.yaml import YAML

from tiv_client import AuthenticatedClient, Client
from tiv_client.api.households import cancel_household, create_household, get_household
from tiv_client.api.tenant_page import tenant_page_action
from tiv_client.api.usage import get_usage
from tiv_client.api.verifications import (
    cancel_verification,
    create_verification,
    get_verification,
    get_verification_report_pdf,
    list_verifications,
    resend_verification,
)
from tiv_client.api.webhooks import list_webhook_deliveries, redeliver_webhook
from tiv_client.models import (
    BadRequestCancelError,
    BadRequestCreateError,
    BadRequestQueryError,
    BadRequestResendError,
    CancelHouseholdResponse,
    CancelVerificationResponse,
    CreateHouseholdRequest,
    CreateHouseholdRequestMembersItem,
    CreateHouseholdResponse,
    CreateVerificationRequest,
    CreateVerificationResponse,
    DeliveriesSubject,
    GetHouseholdResponse,
    GetVerificationResponse,
    IdempotencyKeyReusedError,
    ListVerificationsResponse,
    ListWebhookDeliveriesResponse,
    MemberRole,
    NotFoundError,
    NoWebhookUrlError,
    PayloadTooLargeError,
    RedeliveredVerificationEvent,
    RedeliverWebhookResponse,
    ReportNotReadyError,
    ResendLimitedError,
    ResendVerificationResponse,
    TenantPageActionBody,
    TenantPageActionBodyAction,
    TenantPageActionBodyAgree,
    TenantPageActionBodyScenario,
    UnauthorizedError,
    UnsupportedMediaTypeError,
    UsageResponse,
    VerificationStatus,
    WebhookCompleted,
    WebhookInProgress,
    WebhookResent,
)
from tiv_webhooks import EVENT_MODELS, WebhookVerificationError, verify_webhook

SPEC = Path(__file__).resolve().parents[3] / "infra" / "openapi.yaml"


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run through `bash infra/clients.sh test` (a local stack)")
    return value


@pytest.fixture(scope="module")
def api() -> AuthenticatedClient:
    return AuthenticatedClient(base_url=env("TIV_BASE_URL"), token=env("TIV_API_KEY"), timeout=httpx.Timeout(30.0))


class Hooks:
    """A webhook receiver on the port the stack may deliver to: records each request, answers 200."""

    def __init__(self, port: int) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        # Notified with each request recorded: wait_for wakes on arrivals, not on a timer.
        self.arrived = threading.Condition()
        hooks = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with hooks.arrived:
                    hooks.received.append(({k: v for k, v in self.headers.items()}, body))
                    hooks.arrived.notify_all()
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:  # quiet: headers carry signatures
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{port}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, what: Callable[[dict[str, str], bytes], bool], timeout: float = 60.0) -> tuple[dict[str, str], bytes]:
        def found() -> tuple[dict[str, str], bytes] | None:
            return next(((h, b) for h, b in self.received if what(h, b)), None)

        with self.arrived:
            hit = self.arrived.wait_for(found, timeout)
        if hit is None:
            pytest.fail("the awaited webhook did not arrive within %.0f s" % timeout)
        return hit


@pytest.fixture(scope="module")
def hooks() -> Iterator[Hooks]:
    receiver = Hooks(int(env("TIV_HOOK_PORT")))
    yield receiver
    receiver.server.shutdown()
    receiver.server.server_close()


def event_of(verification_id: str, suffix: str) -> Callable[[dict[str, str], bytes], bool]:
    webhook_id = f"msg_{verification_id.replace('-', '')}_{suffix}"
    return lambda headers, _body: {k.lower(): v for k, v in headers.items()}.get("webhook-id") == webhook_id


def tenant_steps(link: str) -> None:
    """What the tenant does on the page: consent, then connect the sandbox's `good` income."""
    path = urlparse(link).path.split("/")  # /t/{verification_id}/{token}
    page = Client(base_url=env("TIV_BASE_URL"), timeout=httpx.Timeout(30.0))
    for body in (
        TenantPageActionBody(action=TenantPageActionBodyAction.CONSENT, agree=TenantPageActionBodyAgree.YES),
        TenantPageActionBody(action=TenantPageActionBodyAction.CONNECT, scenario=TenantPageActionBodyScenario.GOOD),
    ):
        answer = tenant_page_action.sync_detailed(uuid.UUID(path[2]), path[3], client=page, body=body)
        assert answer.status_code == 303, answer.content[:200]


def test_a_verification_from_create_to_report_with_its_webhooks(api: AuthenticatedClient, hooks: Hooks) -> None:
    body = CreateVerificationRequest(
        tenant_email="jane+good@example.com", tenant_name="Jane Doe", monthly_rent=1500, webhook_url=hooks.url
    )
    key = f"py-{uuid.uuid4()}"
    created = create_verification.sync_detailed(client=api, body=body, idempotency_key=key)
    assert created.status_code == 201 and isinstance(created.parsed, CreateVerificationResponse)
    vid = str(created.parsed.data.verification_id)
    assert created.parsed.data.status == "pending"

    replay = create_verification.sync_detailed(client=api, body=body, idempotency_key=key)
    assert replay.status_code == 201 and replay.headers["idempotent-replayed"] == "true"
    assert str(replay.parsed.data.verification_id) == vid
    body.tenant_name = "Someone Else"
    reused = create_verification.sync_detailed(client=api, body=body, idempotency_key=key)
    assert isinstance(reused.parsed, IdempotencyKeyReusedError) and reused.parsed.code == "idempotency_key_reused"

    resent = resend_verification.sync_detailed(client=api, verification_id=uuid.UUID(vid))
    assert resent.status_code == 202 and isinstance(resent.parsed, ResendVerificationResponse)
    assert resent.parsed.resends.today == 1
    not_ready = get_verification_report_pdf.sync_detailed(client=api, verification_id=uuid.UUID(vid))
    assert isinstance(not_ready.parsed, ReportNotReadyError) and not_ready.parsed.code == "report_not_ready"
    # The resent invite goes out from the table's stream, only while the verification is open.
    hooks.wait_for(event_of(vid, "resent_1"))

    tenant_steps(created.parsed.data.verification_url)
    got = get_verification.sync_detailed(client=api, verification_id=uuid.UUID(vid))
    assert isinstance(got.parsed, GetVerificationResponse)
    assert got.parsed.data.status == VerificationStatus.COMPLETED
    assert got.parsed.data.income_report.total_monthly_income > 0
    pdf = get_verification_report_pdf.sync_detailed(client=api, verification_id=uuid.UUID(vid))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")

    # A completed verification: cancel and resend are refused with their documented codes.
    cancel = cancel_verification.sync_detailed(client=api, verification_id=uuid.UUID(vid))
    assert isinstance(cancel.parsed, BadRequestCancelError) and cancel.parsed.code == "verification_not_cancellable"
    again = resend_verification.sync_detailed(client=api, verification_id=uuid.UUID(vid))
    assert isinstance(again.parsed, BadRequestResendError) and again.parsed.code == "verification_not_resendable"

    # The webhooks, signed with the account's secret, verified and parsed by the helper.
    secret = env("TIV_WEBHOOK_SECRET")
    for suffix, model in (("in_progress", WebhookInProgress), ("resent_1", WebhookResent), ("completed", WebhookCompleted)):
        headers, raw = hooks.wait_for(event_of(vid, suffix))
        event = verify_webhook(secret, raw, headers)
        assert isinstance(event, model) and str(event.data.verification_id) == vid
        if model is WebhookCompleted:
            assert event.data.income_report.total_monthly_income == got.parsed.data.income_report.total_monthly_income
        with pytest.raises(WebhookVerificationError):
            verify_webhook(secret, raw + b" ", headers)
        with pytest.raises(WebhookVerificationError):
            verify_webhook("whsec_" + "A" * 43 + "=", raw, headers)

    # The delivery log shows those attempts; one event is queued again.
    subject = DeliveriesSubject(verification_id=uuid.UUID(vid))
    deadline = time.monotonic() + 30
    while True:
        log = list_webhook_deliveries.sync_detailed(client=api, subject=subject)
        assert isinstance(log.parsed, ListWebhookDeliveriesResponse)
        if {a.event_type for a in log.parsed.data} >= {"verification.in_progress", "verification.completed"}:
            break
        assert time.monotonic() < deadline, [a.event_type for a in log.parsed.data]
        time.sleep(0.5)
    assert all(a.outcome == "delivered" and a.http_status == 200 and a.error is None for a in log.parsed.data)
    event_id = next(a.event_id for a in log.parsed.data if a.event_type == "verification.completed")
    redelivered = redeliver_webhook.sync_detailed(client=api, event_id=event_id)
    assert isinstance(redelivered.parsed, RedeliverWebhookResponse)
    assert isinstance(redelivered.parsed.data, RedeliveredVerificationEvent)
    assert str(redelivered.parsed.data.verification_id) == vid

    listed = list_verifications.sync_detailed(client=api, status=VerificationStatus.COMPLETED, limit=100)
    assert isinstance(listed.parsed, ListVerificationsResponse)
    assert vid in {str(item.id) for item in listed.parsed.data}


def test_an_open_verification_is_cancelled_and_resends_are_limited(api: AuthenticatedClient) -> None:
    created = create_verification.sync_detailed(client=api, body=CreateVerificationRequest(tenant_email="sam@example.com"))
    vid = uuid.UUID(str(created.parsed.data.verification_id))
    for n in (1, 2, 3):
        resent = resend_verification.sync_detailed(client=api, verification_id=vid)
        assert isinstance(resent.parsed, ResendVerificationResponse) and resent.parsed.resends.today == n
    limited = resend_verification.sync_detailed(client=api, verification_id=vid)
    assert isinstance(limited.parsed, ResendLimitedError) and limited.parsed.code == "resend_limit_reached"
    assert int(limited.headers["retry-after"]) > 0

    cancelled = cancel_verification.sync_detailed(client=api, verification_id=vid)
    assert isinstance(cancelled.parsed, CancelVerificationResponse) and cancelled.parsed.data.status == "cancelled"
    got = get_verification.sync_detailed(client=api, verification_id=vid)
    assert got.parsed.data.status == VerificationStatus.EXPIRED
    # No webhook_url: no event was ever sent for it.
    none_sent = redeliver_webhook.sync_detailed(client=api, event_id=f"msg_{vid.hex}_cancelled")
    assert isinstance(none_sent.parsed, NoWebhookUrlError) and none_sent.parsed.code == "no_webhook_url"


def test_a_household_is_created_read_and_cancelled(api: AuthenticatedClient, hooks: Hooks) -> None:
    members = [
        CreateHouseholdRequestMembersItem(tenant_email="alex+good@example.com", role=MemberRole.APPLICANT),
        CreateHouseholdRequestMembersItem(tenant_email="pat+good@example.com", role=MemberRole.GUARANTOR),
    ]
    body = CreateHouseholdRequest(monthly_rent=1800, members=members, webhook_url=hooks.url)
    created = create_household.sync_detailed(client=api, body=body)
    assert created.status_code == 201 and isinstance(created.parsed, CreateHouseholdResponse)
    hid = created.parsed.data.household_id
    assert [m.role for m in created.parsed.data.members] == [MemberRole.APPLICANT, MemberRole.GUARANTOR]

    got = get_household.sync_detailed(client=api, household_id=hid)
    assert isinstance(got.parsed, GetHouseholdResponse) and got.parsed.data.status == "open"
    assert got.parsed.data.decision is None
    log = list_webhook_deliveries.sync_detailed(client=api, subject=DeliveriesSubject(household_id=hid))
    assert isinstance(log.parsed, ListWebhookDeliveriesResponse) and log.parsed.data == []
    members_listed = list_verifications.sync_detailed(client=api, household_id=hid)
    assert {str(i.id) for i in members_listed.parsed.data} == {str(m.verification_id) for m in created.parsed.data.members}

    cancelled = cancel_household.sync_detailed(client=api, household_id=hid)
    assert isinstance(cancelled.parsed, CancelHouseholdResponse)
    assert {m.status for m in cancelled.parsed.data.members} == {"cancelled"}
    after = get_household.sync_detailed(client=api, household_id=hid)
    assert after.parsed.data.status == "cancelled" and after.parsed.data.cancelled_at is not None

    no_applicant = CreateHouseholdRequest(monthly_rent=900, members=members[1:])
    refused = create_household.sync_detailed(client=api, body=no_applicant)
    assert isinstance(refused.parsed, BadRequestCreateError)
    assert [(d.field, d.code) for d in refused.parsed.details] == [("members", "applicant_required")]


def test_usage_and_the_documented_errors_parse_into_their_models(api: AuthenticatedClient) -> None:
    usage = get_usage.sync_detailed(client=api)
    assert isinstance(usage.parsed, UsageResponse)
    assert usage.parsed.data.api.requests_remaining < usage.parsed.data.api.requests_limit
    assert int(usage.headers["x-ratelimit-remaining"]) == usage.parsed.data.api.requests_remaining

    unknown = uuid.uuid4()
    missing = get_verification.sync_detailed(client=api, verification_id=unknown)
    assert isinstance(missing.parsed, NotFoundError) and missing.parsed.code == "not_found"
    assert missing.parsed.request_id == missing.headers["x-request-id"]
    assert isinstance(get_household.sync_detailed(client=api, household_id=unknown).parsed, NotFoundError)
    assert isinstance(redeliver_webhook.sync_detailed(client=api, event_id="msg_nope").parsed, NotFoundError)

    both = DeliveriesSubject(verification_id=unknown, household_id=unknown)
    refused = list_webhook_deliveries.sync_detailed(client=api, subject=both)
    assert isinstance(refused.parsed, BadRequestQueryError) and refused.parsed.details[0].field == "household_id"

    invalid = create_verification.sync_detailed(client=api, body=CreateVerificationRequest(tenant_email="nope"))
    assert isinstance(invalid.parsed, BadRequestCreateError)
    assert [(d.field, d.code) for d in invalid.parsed.details] == [("tenant_email", "invalid")]
    bad_key = create_verification.sync_detailed(
        client=api, body=CreateVerificationRequest(tenant_email="a@example.com"), idempotency_key="two words"
    )
    assert isinstance(bad_key.parsed, BadRequestCreateError) and bad_key.parsed.details[0].field == "Idempotency-Key"
    too_large = create_verification.sync_detailed(
        client=api, body=CreateVerificationRequest(tenant_email="a@example.com", property_address="x" * 17000)
    )
    assert isinstance(too_large.parsed, PayloadTooLargeError) and too_large.parsed.code == "payload_too_large"
    # The generated client always sends JSON; the same parser reads a plain-text create's answer.
    plain = api.get_httpx_client().post("/api/v1/verify", content=b"tenant_email=a", headers={"content-type": "text/plain"})
    parsed = create_verification._build_response(client=api, response=plain).parsed  # noqa: SLF001
    assert isinstance(parsed, UnsupportedMediaTypeError) and parsed.code == "unsupported_media_type"

    stranger = AuthenticatedClient(base_url=env("TIV_BASE_URL"), token="tiv_test_" + "0" * 36)
    denied = get_usage.sync_detailed(client=stranger)
    assert isinstance(denied.parsed, UnauthorizedError) and denied.parsed.code == "invalid_api_key"
    assert denied.headers["www-authenticate"].startswith("Bearer ")


def test_the_helper_knows_every_webhook_type_of_the_file() -> None:
    webhooks = YAML(typ="safe").load(SPEC.read_text(encoding="utf-8"))["webhooks"]
    assert set(EVENT_MODELS) == set(webhooks)
