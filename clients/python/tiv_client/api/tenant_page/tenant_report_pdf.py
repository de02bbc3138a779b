from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...types import Response


def _get_kwargs(
    verification_id: UUID,
    token: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/t/{verification_id}/{token}/report.pdf".format(
            verification_id=quote(str(verification_id), safe=""),
            token=quote(str(token), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> str | None:
    if response.status_code == 200:
        response_200 = cast(str, response.content)
        return response_200

    if response.status_code == 404:
        response_404 = response.text
        return response_404

    if response.status_code == 410:
        response_410 = response.text
        return response_410

    if response.status_code == 500:
        response_500 = response.text
        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    verification_id: UUID,
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[str]:
    """The tenant's copy of the report PDF

     The same PDF as `GET /api/v1/verify/report` gives the landlord, for the tenant: the link's
    token is the credential, as for the page. 404 (the HTML page) for a wrong link and while
    the verification has no report; 410 (the closed page) once the link ended, the window
    after the close (`TenantLinkDaysAfterClose`, 30 days by default). Changes nothing.

    Args:
        verification_id (UUID):
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[str]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
        token=token,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    verification_id: UUID,
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> str | None:
    """The tenant's copy of the report PDF

     The same PDF as `GET /api/v1/verify/report` gives the landlord, for the tenant: the link's
    token is the credential, as for the page. 404 (the HTML page) for a wrong link and while
    the verification has no report; 410 (the closed page) once the link ended, the window
    after the close (`TenantLinkDaysAfterClose`, 30 days by default). Changes nothing.

    Args:
        verification_id (UUID):
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        str
    """

    return sync_detailed(
        verification_id=verification_id,
        token=token,
        client=client,
    ).parsed


async def asyncio_detailed(
    verification_id: UUID,
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[str]:
    """The tenant's copy of the report PDF

     The same PDF as `GET /api/v1/verify/report` gives the landlord, for the tenant: the link's
    token is the credential, as for the page. 404 (the HTML page) for a wrong link and while
    the verification has no report; 410 (the closed page) once the link ended, the window
    after the close (`TenantLinkDaysAfterClose`, 30 days by default). Changes nothing.

    Args:
        verification_id (UUID):
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[str]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
        token=token,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    verification_id: UUID,
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> str | None:
    """The tenant's copy of the report PDF

     The same PDF as `GET /api/v1/verify/report` gives the landlord, for the tenant: the link's
    token is the credential, as for the page. 404 (the HTML page) for a wrong link and while
    the verification has no report; 410 (the closed page) once the link ended, the window
    after the close (`TenantLinkDaysAfterClose`, 30 days by default). Changes nothing.

    Args:
        verification_id (UUID):
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        str
    """

    return (
        await asyncio_detailed(
            verification_id=verification_id,
            token=token,
            client=client,
        )
    ).parsed
