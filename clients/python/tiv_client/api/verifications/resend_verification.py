from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_resend_error import BadRequestResendError
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.not_found_error import NotFoundError
from ...models.resend_limited_error import ResendLimitedError
from ...models.resend_verification_response import ResendVerificationResponse
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
        "method": "post",
        "url": "/api/v1/verify/resend",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestResendError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | ResendLimitedError
    | ResendVerificationResponse
    | UnauthorizedError
    | None
):
    if response.status_code == 202:
        response_202 = ResendVerificationResponse.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = BadRequestResendError.from_dict(response.json())

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
        response_429 = ResendLimitedError.from_dict(response.json())

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
    BadRequestResendError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | ResendLimitedError
    | ResendVerificationResponse
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
    BadRequestResendError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | ResendLimitedError
    | ResendVerificationResponse
    | UnauthorizedError
]:
    """Resend the tenant's invite

     E-mails the tenant the invite again with a new secure link (and texts it, with its own
    link, when `tenant_phone` is a usable number), for a `pending` or `in_progress`
    verification; earlier links stay valid until `expires_at`. At most 3
    resends per verification per UTC day (429 `resend_limit_reached` with `Retry-After`, the
    seconds to the next UTC midnight, past that; concurrent requests at the limit never
    exceed it). Counted against the daily API allowance like every request. The e-mail (and,
    with a `webhook_url`, a `verification.resent` webhook) follows right after the answer;
    test keys follow the deployment's test-mode e-mail setting, like the first invite.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestResendError | ForbiddenError | InternalServerError | NotFoundError | ResendLimitedError | ResendVerificationResponse | UnauthorizedError]
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
    BadRequestResendError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | ResendLimitedError
    | ResendVerificationResponse
    | UnauthorizedError
    | None
):
    """Resend the tenant's invite

     E-mails the tenant the invite again with a new secure link (and texts it, with its own
    link, when `tenant_phone` is a usable number), for a `pending` or `in_progress`
    verification; earlier links stay valid until `expires_at`. At most 3
    resends per verification per UTC day (429 `resend_limit_reached` with `Retry-After`, the
    seconds to the next UTC midnight, past that; concurrent requests at the limit never
    exceed it). Counted against the daily API allowance like every request. The e-mail (and,
    with a `webhook_url`, a `verification.resent` webhook) follows right after the answer;
    test keys follow the deployment's test-mode e-mail setting, like the first invite.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestResendError | ForbiddenError | InternalServerError | NotFoundError | ResendLimitedError | ResendVerificationResponse | UnauthorizedError
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
    BadRequestResendError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | ResendLimitedError
    | ResendVerificationResponse
    | UnauthorizedError
]:
    """Resend the tenant's invite

     E-mails the tenant the invite again with a new secure link (and texts it, with its own
    link, when `tenant_phone` is a usable number), for a `pending` or `in_progress`
    verification; earlier links stay valid until `expires_at`. At most 3
    resends per verification per UTC day (429 `resend_limit_reached` with `Retry-After`, the
    seconds to the next UTC midnight, past that; concurrent requests at the limit never
    exceed it). Counted against the daily API allowance like every request. The e-mail (and,
    with a `webhook_url`, a `verification.resent` webhook) follows right after the answer;
    test keys follow the deployment's test-mode e-mail setting, like the first invite.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestResendError | ForbiddenError | InternalServerError | NotFoundError | ResendLimitedError | ResendVerificationResponse | UnauthorizedError]
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
    BadRequestResendError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | ResendLimitedError
    | ResendVerificationResponse
    | UnauthorizedError
    | None
):
    """Resend the tenant's invite

     E-mails the tenant the invite again with a new secure link (and texts it, with its own
    link, when `tenant_phone` is a usable number), for a `pending` or `in_progress`
    verification; earlier links stay valid until `expires_at`. At most 3
    resends per verification per UTC day (429 `resend_limit_reached` with `Retry-After`, the
    seconds to the next UTC midnight, past that; concurrent requests at the limit never
    exceed it). Counted against the daily API allowance like every request. The e-mail (and,
    with a `webhook_url`, a `verification.resent` webhook) follows right after the answer;
    test keys follow the deployment's test-mode e-mail setting, like the first invite.

    Args:
        verification_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestResendError | ForbiddenError | InternalServerError | NotFoundError | ResendLimitedError | ResendVerificationResponse | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            verification_id=verification_id,
        )
    ).parsed
