from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.rate_limited_error import RateLimitedError
from ...models.unauthorized_error import UnauthorizedError
from ...models.usage_response import UsageResponse
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/usage",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ForbiddenError
    | InternalServerError
    | RateLimitedError
    | UnauthorizedError
    | UsageResponse
    | None
):
    if response.status_code == 200:
        response_200 = UsageResponse.from_dict(response.json())

        return response_200

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
    ForbiddenError
    | InternalServerError
    | RateLimitedError
    | UnauthorizedError
    | UsageResponse
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
) -> Response[
    ForbiddenError
    | InternalServerError
    | RateLimitedError
    | UnauthorizedError
    | UsageResponse
]:
    """Get usage

     Allowances of the authenticated account, for the key's mode: verifications created and
    completed this calendar month (UTC), the daily API request allowance (this request
    included) and the subscription. Query parameters are ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ForbiddenError | InternalServerError | RateLimitedError | UnauthorizedError | UsageResponse]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ForbiddenError
    | InternalServerError
    | RateLimitedError
    | UnauthorizedError
    | UsageResponse
    | None
):
    """Get usage

     Allowances of the authenticated account, for the key's mode: verifications created and
    completed this calendar month (UTC), the daily API request allowance (this request
    included) and the subscription. Query parameters are ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ForbiddenError | InternalServerError | RateLimitedError | UnauthorizedError | UsageResponse
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ForbiddenError
    | InternalServerError
    | RateLimitedError
    | UnauthorizedError
    | UsageResponse
]:
    """Get usage

     Allowances of the authenticated account, for the key's mode: verifications created and
    completed this calendar month (UTC), the daily API request allowance (this request
    included) and the subscription. Query parameters are ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ForbiddenError | InternalServerError | RateLimitedError | UnauthorizedError | UsageResponse]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ForbiddenError
    | InternalServerError
    | RateLimitedError
    | UnauthorizedError
    | UsageResponse
    | None
):
    """Get usage

     Allowances of the authenticated account, for the key's mode: verifications created and
    completed this calendar month (UTC), the daily API request allowance (this request
    included) and the subscription. Query parameters are ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ForbiddenError | InternalServerError | RateLimitedError | UnauthorizedError | UsageResponse
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
