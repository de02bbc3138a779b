from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_create_error import BadRequestCreateError
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.not_found_error import NotFoundError
from ...models.payload_too_large_error import PayloadTooLargeError
from ...models.rate_limited_error import RateLimitedError
from ...models.review_documents_request import ReviewDocumentsRequest
from ...models.review_documents_response import ReviewDocumentsResponse
from ...models.review_refused_error import ReviewRefusedError
from ...models.unauthorized_error import UnauthorizedError
from ...models.unsupported_media_type_error import UnsupportedMediaTypeError
from ...types import UNSET, Response


def _get_kwargs(
    *,
    body: ReviewDocumentsRequest,
    verification_id: UUID,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    json_verification_id = str(verification_id)
    params["verification_id"] = json_verification_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/verify/review",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestCreateError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | PayloadTooLargeError
    | RateLimitedError
    | ReviewDocumentsResponse
    | ReviewRefusedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
    | None
):
    if response.status_code == 200:
        response_200 = ReviewDocumentsResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = BadRequestCreateError.from_dict(response.json())

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
        response_409 = ReviewRefusedError.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = PayloadTooLargeError.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = UnsupportedMediaTypeError.from_dict(response.json())

        return response_415

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
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | PayloadTooLargeError
    | RateLimitedError
    | ReviewDocumentsResponse
    | ReviewRefusedError
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
    body: ReviewDocumentsRequest,
    verification_id: UUID,
) -> Response[
    BadRequestCreateError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | PayloadTooLargeError
    | RateLimitedError
    | ReviewDocumentsResponse
    | ReviewRefusedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    """Record the landlord's review of the documents

     Additive. Records the landlord's review of a completed verification's uploaded documents:
    accepted or rejected, with a note. The review is kept in the report as
    `income_report.document_review`, so `GET /api/v1/verify` and the report PDF show it. One
    review per report: a second is 409 `already_reviewed`, and of concurrent reviews exactly
    one is kept. A verification not completed is 409 `report_not_ready`; a report that is not
    from documents (or was erased) is 409 `no_documents`. Another account's (or the other key
    mode's) id is 404. Counted against the daily API allowance like every request. With a
    `webhook_url`, a `verification.reviewed` webhook follows.

    Args:
        verification_id (UUID):
        body (ReviewDocumentsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestCreateError | ForbiddenError | InternalServerError | NotFoundError | PayloadTooLargeError | RateLimitedError | ReviewDocumentsResponse | ReviewRefusedError | UnauthorizedError | UnsupportedMediaTypeError]
    """

    kwargs = _get_kwargs(
        body=body,
        verification_id=verification_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: ReviewDocumentsRequest,
    verification_id: UUID,
) -> (
    BadRequestCreateError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | PayloadTooLargeError
    | RateLimitedError
    | ReviewDocumentsResponse
    | ReviewRefusedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
    | None
):
    """Record the landlord's review of the documents

     Additive. Records the landlord's review of a completed verification's uploaded documents:
    accepted or rejected, with a note. The review is kept in the report as
    `income_report.document_review`, so `GET /api/v1/verify` and the report PDF show it. One
    review per report: a second is 409 `already_reviewed`, and of concurrent reviews exactly
    one is kept. A verification not completed is 409 `report_not_ready`; a report that is not
    from documents (or was erased) is 409 `no_documents`. Another account's (or the other key
    mode's) id is 404. Counted against the daily API allowance like every request. With a
    `webhook_url`, a `verification.reviewed` webhook follows.

    Args:
        verification_id (UUID):
        body (ReviewDocumentsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestCreateError | ForbiddenError | InternalServerError | NotFoundError | PayloadTooLargeError | RateLimitedError | ReviewDocumentsResponse | ReviewRefusedError | UnauthorizedError | UnsupportedMediaTypeError
    """

    return sync_detailed(
        client=client,
        body=body,
        verification_id=verification_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ReviewDocumentsRequest,
    verification_id: UUID,
) -> Response[
    BadRequestCreateError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | PayloadTooLargeError
    | RateLimitedError
    | ReviewDocumentsResponse
    | ReviewRefusedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
]:
    """Record the landlord's review of the documents

     Additive. Records the landlord's review of a completed verification's uploaded documents:
    accepted or rejected, with a note. The review is kept in the report as
    `income_report.document_review`, so `GET /api/v1/verify` and the report PDF show it. One
    review per report: a second is 409 `already_reviewed`, and of concurrent reviews exactly
    one is kept. A verification not completed is 409 `report_not_ready`; a report that is not
    from documents (or was erased) is 409 `no_documents`. Another account's (or the other key
    mode's) id is 404. Counted against the daily API allowance like every request. With a
    `webhook_url`, a `verification.reviewed` webhook follows.

    Args:
        verification_id (UUID):
        body (ReviewDocumentsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestCreateError | ForbiddenError | InternalServerError | NotFoundError | PayloadTooLargeError | RateLimitedError | ReviewDocumentsResponse | ReviewRefusedError | UnauthorizedError | UnsupportedMediaTypeError]
    """

    kwargs = _get_kwargs(
        body=body,
        verification_id=verification_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ReviewDocumentsRequest,
    verification_id: UUID,
) -> (
    BadRequestCreateError
    | ForbiddenError
    | InternalServerError
    | NotFoundError
    | PayloadTooLargeError
    | RateLimitedError
    | ReviewDocumentsResponse
    | ReviewRefusedError
    | UnauthorizedError
    | UnsupportedMediaTypeError
    | None
):
    """Record the landlord's review of the documents

     Additive. Records the landlord's review of a completed verification's uploaded documents:
    accepted or rejected, with a note. The review is kept in the report as
    `income_report.document_review`, so `GET /api/v1/verify` and the report PDF show it. One
    review per report: a second is 409 `already_reviewed`, and of concurrent reviews exactly
    one is kept. A verification not completed is 409 `report_not_ready`; a report that is not
    from documents (or was erased) is 409 `no_documents`. Another account's (or the other key
    mode's) id is 404. Counted against the daily API allowance like every request. With a
    `webhook_url`, a `verification.reviewed` webhook follows.

    Args:
        verification_id (UUID):
        body (ReviewDocumentsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestCreateError | ForbiddenError | InternalServerError | NotFoundError | PayloadTooLargeError | RateLimitedError | ReviewDocumentsResponse | ReviewRefusedError | UnauthorizedError | UnsupportedMediaTypeError
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            verification_id=verification_id,
        )
    ).parsed
