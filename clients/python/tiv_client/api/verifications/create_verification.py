from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_create_error import BadRequestCreateError
from ...models.create_verification_request import CreateVerificationRequest
from ...models.create_verification_response import CreateVerificationResponse
from ...models.forbidden_create_error import ForbiddenCreateError
from ...models.idempotency_key_in_use_error import IdempotencyKeyInUseError
from ...models.idempotency_key_reused_error import IdempotencyKeyReusedError
from ...models.internal_server_error import InternalServerError
from ...models.payload_too_large_error import PayloadTooLargeError
from ...models.rate_limited_error import RateLimitedError
from ...models.unauthorized_error import UnauthorizedError
from ...models.unsupported_media_type_error import UnsupportedMediaTypeError
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateVerificationRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/verify",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestCreateError
    | CreateVerificationResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
    | None
):
    if response.status_code == 201:
        response_201 = CreateVerificationResponse.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = BadRequestCreateError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UnauthorizedError.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ForbiddenCreateError.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = IdempotencyKeyInUseError.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = PayloadTooLargeError.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = UnsupportedMediaTypeError.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = IdempotencyKeyReusedError.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = RateLimitedError.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = InternalServerError.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    BadRequestCreateError
    | CreateVerificationResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateVerificationRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    BadRequestCreateError
    | CreateVerificationResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    """Create a verification

     Creates a verification in status `pending` and e-mails the tenant a secure link
    (`verification_url`), valid for 7 days. Every field problem is reported at once in
    `details`. Unknown body fields are ignored. Strings are trimmed; an empty or all-blank
    optional string counts as absent.

    With an `Idempotency-Key`, the same key and the same body (compared as parsed JSON, key order
    ignored) within 24 hours answer the first verification again (201 with
    `Idempotent-Replayed: true` and a fresh link to the same verification; no second e-mail);
    the same key with another body is a 422. Replay links are bounded: the 3 most recent
    replays' links stay valid and an older replay link stops working; the first response's
    link and the e-mailed link are never revoked by a replay.

    Test-key verifications are not charged against the monthly allowance; live ones give 403
    `verification_limit_reached` once it is used up. A service without an income provider for
    live data (no Plaid configured) answers live keys 403 `live_mode_unavailable` and creates
    nothing: a live report is built only from real income data. Test keys always work.

    **Test mode sends nothing to a person.** A deployed service e-mails no tenant for a
    test-key verification (a test key is not a mail relay): open the `verification_url` of
    this response yourself to play the tenant. (The local stack sends them, so every e-mail
    can be seen there.)

    The tenant e-mail is retried for 48 hours when it cannot be sent for a reason on the
    service's side (an outage, the service's own e-mail set-up); after that the verification
    ends `failed` (webhook `verification.failed`) and is not counted in `used_this_month`.
    An address the e-mail provider refuses for good also ends `failed`, and is counted.

    Args:
        idempotency_key (str | Unset):
        body (CreateVerificationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestCreateError | CreateVerificationResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CreateVerificationRequest,
    idempotency_key: str | Unset = UNSET,
) -> (
    BadRequestCreateError
    | CreateVerificationResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
    | None
):
    """Create a verification

     Creates a verification in status `pending` and e-mails the tenant a secure link
    (`verification_url`), valid for 7 days. Every field problem is reported at once in
    `details`. Unknown body fields are ignored. Strings are trimmed; an empty or all-blank
    optional string counts as absent.

    With an `Idempotency-Key`, the same key and the same body (compared as parsed JSON, key order
    ignored) within 24 hours answer the first verification again (201 with
    `Idempotent-Replayed: true` and a fresh link to the same verification; no second e-mail);
    the same key with another body is a 422. Replay links are bounded: the 3 most recent
    replays' links stay valid and an older replay link stops working; the first response's
    link and the e-mailed link are never revoked by a replay.

    Test-key verifications are not charged against the monthly allowance; live ones give 403
    `verification_limit_reached` once it is used up. A service without an income provider for
    live data (no Plaid configured) answers live keys 403 `live_mode_unavailable` and creates
    nothing: a live report is built only from real income data. Test keys always work.

    **Test mode sends nothing to a person.** A deployed service e-mails no tenant for a
    test-key verification (a test key is not a mail relay): open the `verification_url` of
    this response yourself to play the tenant. (The local stack sends them, so every e-mail
    can be seen there.)

    The tenant e-mail is retried for 48 hours when it cannot be sent for a reason on the
    service's side (an outage, the service's own e-mail set-up); after that the verification
    ends `failed` (webhook `verification.failed`) and is not counted in `used_this_month`.
    An address the e-mail provider refuses for good also ends `failed`, and is counted.

    Args:
        idempotency_key (str | Unset):
        body (CreateVerificationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestCreateError | CreateVerificationResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateVerificationRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    BadRequestCreateError
    | CreateVerificationResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    """Create a verification

     Creates a verification in status `pending` and e-mails the tenant a secure link
    (`verification_url`), valid for 7 days. Every field problem is reported at once in
    `details`. Unknown body fields are ignored. Strings are trimmed; an empty or all-blank
    optional string counts as absent.

    With an `Idempotency-Key`, the same key and the same body (compared as parsed JSON, key order
    ignored) within 24 hours answer the first verification again (201 with
    `Idempotent-Replayed: true` and a fresh link to the same verification; no second e-mail);
    the same key with another body is a 422. Replay links are bounded: the 3 most recent
    replays' links stay valid and an older replay link stops working; the first response's
    link and the e-mailed link are never revoked by a replay.

    Test-key verifications are not charged against the monthly allowance; live ones give 403
    `verification_limit_reached` once it is used up. A service without an income provider for
    live data (no Plaid configured) answers live keys 403 `live_mode_unavailable` and creates
    nothing: a live report is built only from real income data. Test keys always work.

    **Test mode sends nothing to a person.** A deployed service e-mails no tenant for a
    test-key verification (a test key is not a mail relay): open the `verification_url` of
    this response yourself to play the tenant. (The local stack sends them, so every e-mail
    can be seen there.)

    The tenant e-mail is retried for 48 hours when it cannot be sent for a reason on the
    service's side (an outage, the service's own e-mail set-up); after that the verification
    ends `failed` (webhook `verification.failed`) and is not counted in `used_this_month`.
    An address the e-mail provider refuses for good also ends `failed`, and is counted.

    Args:
        idempotency_key (str | Unset):
        body (CreateVerificationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestCreateError | CreateVerificationResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateVerificationRequest,
    idempotency_key: str | Unset = UNSET,
) -> (
    BadRequestCreateError
    | CreateVerificationResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
    | None
):
    """Create a verification

     Creates a verification in status `pending` and e-mails the tenant a secure link
    (`verification_url`), valid for 7 days. Every field problem is reported at once in
    `details`. Unknown body fields are ignored. Strings are trimmed; an empty or all-blank
    optional string counts as absent.

    With an `Idempotency-Key`, the same key and the same body (compared as parsed JSON, key order
    ignored) within 24 hours answer the first verification again (201 with
    `Idempotent-Replayed: true` and a fresh link to the same verification; no second e-mail);
    the same key with another body is a 422. Replay links are bounded: the 3 most recent
    replays' links stay valid and an older replay link stops working; the first response's
    link and the e-mailed link are never revoked by a replay.

    Test-key verifications are not charged against the monthly allowance; live ones give 403
    `verification_limit_reached` once it is used up. A service without an income provider for
    live data (no Plaid configured) answers live keys 403 `live_mode_unavailable` and creates
    nothing: a live report is built only from real income data. Test keys always work.

    **Test mode sends nothing to a person.** A deployed service e-mails no tenant for a
    test-key verification (a test key is not a mail relay): open the `verification_url` of
    this response yourself to play the tenant. (The local stack sends them, so every e-mail
    can be seen there.)

    The tenant e-mail is retried for 48 hours when it cannot be sent for a reason on the
    service's side (an outage, the service's own e-mail set-up); after that the verification
    ends `failed` (webhook `verification.failed`) and is not counted in `used_this_month`.
    An address the e-mail provider refuses for good also ends `failed`, and is counted.

    Args:
        idempotency_key (str | Unset):
        body (CreateVerificationRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestCreateError | CreateVerificationResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
