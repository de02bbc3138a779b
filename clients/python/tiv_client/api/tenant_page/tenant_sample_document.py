from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.tenant_sample_document_sample import TenantSampleDocumentSample
from ...types import Response


def _get_kwargs(
    verification_id: UUID,
    token: str,
    sample: TenantSampleDocumentSample,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/t/{verification_id}/{token}/samples/{sample}.pdf".format(
            verification_id=quote(str(verification_id), safe=""),
            token=quote(str(token), safe=""),
            sample=quote(str(sample), safe=""),
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
    sample: TenantSampleDocumentSample,
    *,
    client: AuthenticatedClient | Client,
) -> Response[str]:
    """A sandbox sample document, to upload on the page

     Sandbox only: the page of a test verification that offers documents lists these samples.
    Each is a pay stub made for the verification's tenant, genuine or edited in one of the
    ways the checks find, or a scan; uploaded on the page, it gets the verdict it shows.
    404 (the HTML page) for a wrong link, a live verification, or a page that offers no
    documents; 410 (the closed page) once the link ended. Changes nothing.

    Args:
        verification_id (UUID):
        token (str):
        sample (TenantSampleDocumentSample):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[str]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
        token=token,
        sample=sample,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    verification_id: UUID,
    token: str,
    sample: TenantSampleDocumentSample,
    *,
    client: AuthenticatedClient | Client,
) -> str | None:
    """A sandbox sample document, to upload on the page

     Sandbox only: the page of a test verification that offers documents lists these samples.
    Each is a pay stub made for the verification's tenant, genuine or edited in one of the
    ways the checks find, or a scan; uploaded on the page, it gets the verdict it shows.
    404 (the HTML page) for a wrong link, a live verification, or a page that offers no
    documents; 410 (the closed page) once the link ended. Changes nothing.

    Args:
        verification_id (UUID):
        token (str):
        sample (TenantSampleDocumentSample):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        str
    """

    return sync_detailed(
        verification_id=verification_id,
        token=token,
        sample=sample,
        client=client,
    ).parsed


async def asyncio_detailed(
    verification_id: UUID,
    token: str,
    sample: TenantSampleDocumentSample,
    *,
    client: AuthenticatedClient | Client,
) -> Response[str]:
    """A sandbox sample document, to upload on the page

     Sandbox only: the page of a test verification that offers documents lists these samples.
    Each is a pay stub made for the verification's tenant, genuine or edited in one of the
    ways the checks find, or a scan; uploaded on the page, it gets the verdict it shows.
    404 (the HTML page) for a wrong link, a live verification, or a page that offers no
    documents; 410 (the closed page) once the link ended. Changes nothing.

    Args:
        verification_id (UUID):
        token (str):
        sample (TenantSampleDocumentSample):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[str]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
        token=token,
        sample=sample,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    verification_id: UUID,
    token: str,
    sample: TenantSampleDocumentSample,
    *,
    client: AuthenticatedClient | Client,
) -> str | None:
    """A sandbox sample document, to upload on the page

     Sandbox only: the page of a test verification that offers documents lists these samples.
    Each is a pay stub made for the verification's tenant, genuine or edited in one of the
    ways the checks find, or a scan; uploaded on the page, it gets the verdict it shows.
    404 (the HTML page) for a wrong link, a live verification, or a page that offers no
    documents; 410 (the closed page) once the link ended. Changes nothing.

    Args:
        verification_id (UUID):
        token (str):
        sample (TenantSampleDocumentSample):

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
            sample=sample,
            client=client,
        )
    ).parsed
