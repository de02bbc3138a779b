from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_query_error import BadRequestQueryError
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.list_verifications_response import ListVerificationsResponse
from ...models.rate_limited_error import RateLimitedError
from ...models.unauthorized_error import UnauthorizedError
from ...models.verification_status import VerificationStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
    status: VerificationStatus | Unset = UNSET,
    household_id: UUID | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    json_household_id: str | Unset = UNSET
    if not isinstance(household_id, Unset):
        json_household_id = str(household_id)
    params["household_id"] = json_household_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/verifications",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListVerificationsResponse
    | RateLimitedError
    | UnauthorizedError
    | None
):
    if response.status_code == 200:
        response_200 = ListVerificationsResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = BadRequestQueryError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UnauthorizedError.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ForbiddenError.from_dict(response.json())

        return response_403

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
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListVerificationsResponse
    | RateLimitedError
    | UnauthorizedError
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
    limit: int | Unset = 20,
    offset: int | Unset = 0,
    status: VerificationStatus | Unset = UNSET,
    household_id: UUID | Unset = UNSET,
) -> Response[
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListVerificationsResponse
    | RateLimitedError
    | UnauthorizedError
]:
    """List verifications

     The caller's verifications of the key's mode, newest first. `pagination.total` counts the
    filtered set; `pagination.limit` reports the limit applied (a `limit` above 100 is clamped to
    100). `status` filters by the status each item shows: a pending or in_progress verification
    past `expires_at` is listed (and counted) under `expired`, never under its stored status,
    also before the expiry sweep has stored it as expired.

    Args:
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.
        status (VerificationStatus | Unset): `expired` also covers cancelled verifications.
        household_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | ListVerificationsResponse | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        limit=limit,
        offset=offset,
        status=status,
        household_id=household_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
    status: VerificationStatus | Unset = UNSET,
    household_id: UUID | Unset = UNSET,
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListVerificationsResponse
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """List verifications

     The caller's verifications of the key's mode, newest first. `pagination.total` counts the
    filtered set; `pagination.limit` reports the limit applied (a `limit` above 100 is clamped to
    100). `status` filters by the status each item shows: a pending or in_progress verification
    past `expires_at` is listed (and counted) under `expired`, never under its stored status,
    also before the expiry sweep has stored it as expired.

    Args:
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.
        status (VerificationStatus | Unset): `expired` also covers cancelled verifications.
        household_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | ListVerificationsResponse | RateLimitedError | UnauthorizedError
    """

    return sync_detailed(
        client=client,
        limit=limit,
        offset=offset,
        status=status,
        household_id=household_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
    status: VerificationStatus | Unset = UNSET,
    household_id: UUID | Unset = UNSET,
) -> Response[
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListVerificationsResponse
    | RateLimitedError
    | UnauthorizedError
]:
    """List verifications

     The caller's verifications of the key's mode, newest first. `pagination.total` counts the
    filtered set; `pagination.limit` reports the limit applied (a `limit` above 100 is clamped to
    100). `status` filters by the status each item shows: a pending or in_progress verification
    past `expires_at` is listed (and counted) under `expired`, never under its stored status,
    also before the expiry sweep has stored it as expired.

    Args:
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.
        status (VerificationStatus | Unset): `expired` also covers cancelled verifications.
        household_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | ListVerificationsResponse | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        limit=limit,
        offset=offset,
        status=status,
        household_id=household_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
    status: VerificationStatus | Unset = UNSET,
    household_id: UUID | Unset = UNSET,
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListVerificationsResponse
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """List verifications

     The caller's verifications of the key's mode, newest first. `pagination.total` counts the
    filtered set; `pagination.limit` reports the limit applied (a `limit` above 100 is clamped to
    100). `status` filters by the status each item shows: a pending or in_progress verification
    past `expires_at` is listed (and counted) under `expired`, never under its stored status,
    also before the expiry sweep has stored it as expired.

    Args:
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.
        status (VerificationStatus | Unset): `expired` also covers cancelled verifications.
        household_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | ListVerificationsResponse | RateLimitedError | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            offset=offset,
            status=status,
            household_id=household_id,
        )
    ).parsed
