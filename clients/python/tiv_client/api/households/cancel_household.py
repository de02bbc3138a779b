from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_query_error import BadRequestQueryError
from ...models.cancel_household_response import CancelHouseholdResponse
from ...models.forbidden_error import ForbiddenError
from ...models.household_closed_error import HouseholdClosedError
from ...models.internal_server_error import InternalServerError
from ...models.not_found_error import NotFoundError
from ...models.rate_limited_error import RateLimitedError
from ...models.unauthorized_error import UnauthorizedError
from ...types import UNSET, Response


def _get_kwargs(
    *,
    household_id: UUID,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_household_id = str(household_id)
    params["household_id"] = json_household_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/households",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestQueryError
    | CancelHouseholdResponse
    | ForbiddenError
    | HouseholdClosedError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    if response.status_code == 200:
        response_200 = CancelHouseholdResponse.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = HouseholdClosedError.from_dict(response.json())

        return response_409

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
    | CancelHouseholdResponse
    | ForbiddenError
    | HouseholdClosedError
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
    household_id: UUID,
) -> Response[
    BadRequestQueryError
    | CancelHouseholdResponse
    | ForbiddenError
    | HouseholdClosedError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """Cancel every open member of a household

     Cancels the household (undecided only; it is then never decided) and, in the same write, each member
    that is pending or in progress; completed, failed and expired members stay as they are. From that
    moment no read shows a member open (its own GET /verify, the list, GET /households) and no tenant
    step of one succeeds. Each member's status is reported. A second cancel cancels nothing and reports
    the members as they are. A cancel of a household whose members have all finished (decided or not)
    changes nothing and is a 409 `household_closed`.

    Args:
        household_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | CancelHouseholdResponse | ForbiddenError | HouseholdClosedError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        household_id=household_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    household_id: UUID,
) -> (
    BadRequestQueryError
    | CancelHouseholdResponse
    | ForbiddenError
    | HouseholdClosedError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """Cancel every open member of a household

     Cancels the household (undecided only; it is then never decided) and, in the same write, each member
    that is pending or in progress; completed, failed and expired members stay as they are. From that
    moment no read shows a member open (its own GET /verify, the list, GET /households) and no tenant
    step of one succeeds. Each member's status is reported. A second cancel cancels nothing and reports
    the members as they are. A cancel of a household whose members have all finished (decided or not)
    changes nothing and is a 409 `household_closed`.

    Args:
        household_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | CancelHouseholdResponse | ForbiddenError | HouseholdClosedError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return sync_detailed(
        client=client,
        household_id=household_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    household_id: UUID,
) -> Response[
    BadRequestQueryError
    | CancelHouseholdResponse
    | ForbiddenError
    | HouseholdClosedError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """Cancel every open member of a household

     Cancels the household (undecided only; it is then never decided) and, in the same write, each member
    that is pending or in progress; completed, failed and expired members stay as they are. From that
    moment no read shows a member open (its own GET /verify, the list, GET /households) and no tenant
    step of one succeeds. Each member's status is reported. A second cancel cancels nothing and reports
    the members as they are. A cancel of a household whose members have all finished (decided or not)
    changes nothing and is a 409 `household_closed`.

    Args:
        household_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | CancelHouseholdResponse | ForbiddenError | HouseholdClosedError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        household_id=household_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    household_id: UUID,
) -> (
    BadRequestQueryError
    | CancelHouseholdResponse
    | ForbiddenError
    | HouseholdClosedError
    | InternalServerError
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """Cancel every open member of a household

     Cancels the household (undecided only; it is then never decided) and, in the same write, each member
    that is pending or in progress; completed, failed and expired members stay as they are. From that
    moment no read shows a member open (its own GET /verify, the list, GET /households) and no tenant
    step of one succeeds. Each member's status is reported. A second cancel cancels nothing and reports
    the members as they are. A cancel of a household whose members have all finished (decided or not)
    changes nothing and is a 409 `household_closed`.

    Args:
        household_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | CancelHouseholdResponse | ForbiddenError | HouseholdClosedError | InternalServerError | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            household_id=household_id,
        )
    ).parsed
