from http import HTTPStatus
from typing import Any
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
        "url": "/t/{verification_id}/{token}".format(
            verification_id=quote(str(verification_id), safe=""),
            token=quote(str(token), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> str | None:
    if response.status_code == 200:
        response_200 = response.text
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

    if response.status_code == 503:
        response_503 = response.text
        return response_503

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
    """Tenant page

     The page behind the secure link (`verification_url`). Opening it changes nothing (mail
    scanners fetch every link): no status change, no webhook. It shows, by state: the consent form; the
    income-source step
    (sandbox scenarios for test verifications; for live ones a button that starts the
    provider's widget, since opening the page asks the provider nothing); once
    completed, what was shared (the report's figures), a link to the same PDF as the landlord's
    (`report.pdf` under the link) and the form for one note to the landlord; a could-not-verify page
    once failed; 410 once expired or cancelled.
    HEAD is answered like GET. Any method other than GET, HEAD and POST answers 405 with an HTML page
    (`components.responses.HtmlMethodNotAllowed`).
    No API key; the link is the credential.

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
    """Tenant page

     The page behind the secure link (`verification_url`). Opening it changes nothing (mail
    scanners fetch every link): no status change, no webhook. It shows, by state: the consent form; the
    income-source step
    (sandbox scenarios for test verifications; for live ones a button that starts the
    provider's widget, since opening the page asks the provider nothing); once
    completed, what was shared (the report's figures), a link to the same PDF as the landlord's
    (`report.pdf` under the link) and the form for one note to the landlord; a could-not-verify page
    once failed; 410 once expired or cancelled.
    HEAD is answered like GET. Any method other than GET, HEAD and POST answers 405 with an HTML page
    (`components.responses.HtmlMethodNotAllowed`).
    No API key; the link is the credential.

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
    """Tenant page

     The page behind the secure link (`verification_url`). Opening it changes nothing (mail
    scanners fetch every link): no status change, no webhook. It shows, by state: the consent form; the
    income-source step
    (sandbox scenarios for test verifications; for live ones a button that starts the
    provider's widget, since opening the page asks the provider nothing); once
    completed, what was shared (the report's figures), a link to the same PDF as the landlord's
    (`report.pdf` under the link) and the form for one note to the landlord; a could-not-verify page
    once failed; 410 once expired or cancelled.
    HEAD is answered like GET. Any method other than GET, HEAD and POST answers 405 with an HTML page
    (`components.responses.HtmlMethodNotAllowed`).
    No API key; the link is the credential.

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
    """Tenant page

     The page behind the secure link (`verification_url`). Opening it changes nothing (mail
    scanners fetch every link): no status change, no webhook. It shows, by state: the consent form; the
    income-source step
    (sandbox scenarios for test verifications; for live ones a button that starts the
    provider's widget, since opening the page asks the provider nothing); once
    completed, what was shared (the report's figures), a link to the same PDF as the landlord's
    (`report.pdf` under the link) and the form for one note to the landlord; a could-not-verify page
    once failed; 410 once expired or cancelled.
    HEAD is answered like GET. Any method other than GET, HEAD and POST answers 405 with an HTML page
    (`components.responses.HtmlMethodNotAllowed`).
    No API key; the link is the credential.

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
