from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_create_error import BadRequestCreateError
from ...models.create_household_request import CreateHouseholdRequest
from ...models.create_household_response import CreateHouseholdResponse
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
    body: CreateHouseholdRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/households",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestCreateError
    | CreateHouseholdResponse
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
        response_201 = CreateHouseholdResponse.from_dict(response.json())

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
    | CreateHouseholdResponse
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
    body: CreateHouseholdRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    BadRequestCreateError
    | CreateHouseholdResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    """Verify a household (co-applicants and guarantors) together

     Additive to the contract. Creates one ordinary verification per member (each shown, listed
    and counted like any other, with its own e-mailed link) and the household, in one atomic
    write: the monthly allowance of a live key is checked for all members at once (all or
    nothing; `verification_limit_reached` when they do not all fit). Duplicate member e-mails
    (compared without case) are a 400 on `members[i].tenant_email`; at least one member must be
    an `applicant`. `Idempotency-Key` works as on POST /verify (same body: the same household,
    with a fresh link per member; another body: 422). Once every member's verification is
    final, GET shows the decision and a `household.completed` webhook is sent.

    Args:
        idempotency_key (str | Unset):
        body (CreateHouseholdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestCreateError | CreateHouseholdResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError]
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
    body: CreateHouseholdRequest,
    idempotency_key: str | Unset = UNSET,
) -> (
    BadRequestCreateError
    | CreateHouseholdResponse
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
    """Verify a household (co-applicants and guarantors) together

     Additive to the contract. Creates one ordinary verification per member (each shown, listed
    and counted like any other, with its own e-mailed link) and the household, in one atomic
    write: the monthly allowance of a live key is checked for all members at once (all or
    nothing; `verification_limit_reached` when they do not all fit). Duplicate member e-mails
    (compared without case) are a 400 on `members[i].tenant_email`; at least one member must be
    an `applicant`. `Idempotency-Key` works as on POST /verify (same body: the same household,
    with a fresh link per member; another body: 422). Once every member's verification is
    final, GET shows the decision and a `household.completed` webhook is sent.

    Args:
        idempotency_key (str | Unset):
        body (CreateHouseholdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestCreateError | CreateHouseholdResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateHouseholdRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    BadRequestCreateError
    | CreateHouseholdResponse
    | ForbiddenCreateError
    | IdempotencyKeyInUseError
    | IdempotencyKeyReusedError
    | InternalServerError
    | PayloadTooLargeError
    | RateLimitedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    """Verify a household (co-applicants and guarantors) together

     Additive to the contract. Creates one ordinary verification per member (each shown, listed
    and counted like any other, with its own e-mailed link) and the household, in one atomic
    write: the monthly allowance of a live key is checked for all members at once (all or
    nothing; `verification_limit_reached` when they do not all fit). Duplicate member e-mails
    (compared without case) are a 400 on `members[i].tenant_email`; at least one member must be
    an `applicant`. `Idempotency-Key` works as on POST /verify (same body: the same household,
    with a fresh link per member; another body: 422). Once every member's verification is
    final, GET shows the decision and a `household.completed` webhook is sent.

    Args:
        idempotency_key (str | Unset):
        body (CreateHouseholdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestCreateError | CreateHouseholdResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError]
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
    body: CreateHouseholdRequest,
    idempotency_key: str | Unset = UNSET,
) -> (
    BadRequestCreateError
    | CreateHouseholdResponse
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
    """Verify a household (co-applicants and guarantors) together

     Additive to the contract. Creates one ordinary verification per member (each shown, listed
    and counted like any other, with its own e-mailed link) and the household, in one atomic
    write: the monthly allowance of a live key is checked for all members at once (all or
    nothing; `verification_limit_reached` when they do not all fit). Duplicate member e-mails
    (compared without case) are a 400 on `members[i].tenant_email`; at least one member must be
    an `applicant`. `Idempotency-Key` works as on POST /verify (same body: the same household,
    with a fresh link per member; another body: 422). Once every member's verification is
    final, GET shows the decision and a `household.completed` webhook is sent.

    Args:
        idempotency_key (str | Unset):
        body (CreateHouseholdRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestCreateError | CreateHouseholdResponse | ForbiddenCreateError | IdempotencyKeyInUseError | IdempotencyKeyReusedError | InternalServerError | PayloadTooLargeError | RateLimitedError | UnauthorizedError | UnsupportedMediaTypeError
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
