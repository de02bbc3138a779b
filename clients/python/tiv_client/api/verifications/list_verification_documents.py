from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_query_error import BadRequestQueryError
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.list_documents_response import ListDocumentsResponse
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
        "method": "get",
        "url": "/api/v1/verify/documents",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListDocumentsResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    if response.status_code == 200:
        response_200 = ListDocumentsResponse.from_dict(response.json())

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
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListDocumentsResponse
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
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListDocumentsResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """List the uploaded documents, with download links

     The documents the tenant uploaded, in upload order, each with its state, its verdict once
    analysed, and a link that downloads the original as an attachment for five minutes.
    Authentication, metering and the rate headers are those of `GET /api/v1/verify`; another
    account's (or the other key mode's) id is 404. A verification without uploads lists none.
    Nothing changes on the verification.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | ListDocumentsResponse | NotFoundError | RateLimitedError | UnauthorizedError]
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
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListDocumentsResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """List the uploaded documents, with download links

     The documents the tenant uploaded, in upload order, each with its state, its verdict once
    analysed, and a link that downloads the original as an attachment for five minutes.
    Authentication, metering and the rate headers are those of `GET /api/v1/verify`; another
    account's (or the other key mode's) id is 404. A verification without uploads lists none.
    Nothing changes on the verification.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | ListDocumentsResponse | NotFoundError | RateLimitedError | UnauthorizedError
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
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListDocumentsResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """List the uploaded documents, with download links

     The documents the tenant uploaded, in upload order, each with its state, its verdict once
    analysed, and a link that downloads the original as an attachment for five minutes.
    Authentication, metering and the rate headers are those of `GET /api/v1/verify`; another
    account's (or the other key mode's) id is 404. A verification without uploads lists none.
    Nothing changes on the verification.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | ListDocumentsResponse | NotFoundError | RateLimitedError | UnauthorizedError]
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
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListDocumentsResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """List the uploaded documents, with download links

     The documents the tenant uploaded, in upload order, each with its state, its verdict once
    analysed, and a link that downloads the original as an attachment for five minutes.
    Authentication, metering and the rate headers are those of `GET /api/v1/verify`; another
    account's (or the other key mode's) id is 404. A verification without uploads lists none.
    Nothing changes on the verification.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | ListDocumentsResponse | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            verification_id=verification_id,
        )
    ).parsed
