from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_erase_error import BadRequestEraseError
from ...models.erase_verification_data_response import EraseVerificationDataResponse
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.not_found_error import NotFoundError
from ...models.rate_limited_error import RateLimitedError
from ...models.unauthorized_error import UnauthorizedError
from ...types import UNSET, Response


def _get_kwargs(
    *,
    verification_id: UUID,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_verification_id = str(verification_id)
    params["verification_id"] = json_verification_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/verify/data",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestEraseError
    | EraseVerificationDataResponse
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    if response.status_code == 200:
        response_200 = EraseVerificationDataResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = BadRequestEraseError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UnauthorizedError.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ForbiddenError.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = NotFoundError.from_dict(response.json())

        return response_404

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
    BadRequestEraseError
    | EraseVerificationDataResponse
    | ForbiddenError
    | InternalServerError
    | NotFoundError
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
    verification_id: UUID,
) -> Response[
    BadRequestEraseError
    | EraseVerificationDataResponse
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """Erase a verification's personal data

     Additive. Erases at once the personal and financial data of a closed verification
    (completed, failed, expired or cancelled), as the account's retention period would later:
    the tenant's name, e-mail, phone and address, the rent, the report, the tenant's note,
    link tokens and the stored webhook events. Ids, status and timestamps stay; GET then shows
    `erased_at`, and a `verification.erased` webhook follows. Asking again answers the same
    200. A pending or in-progress verification (not past `expires_at`) is a 400
    `verification_not_erasable`: cancel it first.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestEraseError | EraseVerificationDataResponse | ForbiddenError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    verification_id: UUID,
) -> (
    BadRequestEraseError
    | EraseVerificationDataResponse
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """Erase a verification's personal data

     Additive. Erases at once the personal and financial data of a closed verification
    (completed, failed, expired or cancelled), as the account's retention period would later:
    the tenant's name, e-mail, phone and address, the rent, the report, the tenant's note,
    link tokens and the stored webhook events. Ids, status and timestamps stay; GET then shows
    `erased_at`, and a `verification.erased` webhook follows. Asking again answers the same
    200. A pending or in-progress verification (not past `expires_at`) is a 400
    `verification_not_erasable`: cancel it first.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestEraseError | EraseVerificationDataResponse | ForbiddenError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return sync_detailed(
        client=client,
        verification_id=verification_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    verification_id: UUID,
) -> Response[
    BadRequestEraseError
    | EraseVerificationDataResponse
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """Erase a verification's personal data

     Additive. Erases at once the personal and financial data of a closed verification
    (completed, failed, expired or cancelled), as the account's retention period would later:
    the tenant's name, e-mail, phone and address, the rent, the report, the tenant's note,
    link tokens and the stored webhook events. Ids, status and timestamps stay; GET then shows
    `erased_at`, and a `verification.erased` webhook follows. Asking again answers the same
    200. A pending or in-progress verification (not past `expires_at`) is a 400
    `verification_not_erasable`: cancel it first.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestEraseError | EraseVerificationDataResponse | ForbiddenError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    verification_id: UUID,
) -> (
    BadRequestEraseError
    | EraseVerificationDataResponse
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """Erase a verification's personal data

     Additive. Erases at once the personal and financial data of a closed verification
    (completed, failed, expired or cancelled), as the account's retention period would later:
    the tenant's name, e-mail, phone and address, the rent, the report, the tenant's note,
    link tokens and the stored webhook events. Ids, status and timestamps stay; GET then shows
    `erased_at`, and a `verification.erased` webhook follows. Asking again answers the same
    200. A pending or in-progress verification (not past `expires_at`) is a 400
    `verification_not_erasable`: cancel it first.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestEraseError | EraseVerificationDataResponse | ForbiddenError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            verification_id=verification_id,
        )
    ).parsed
