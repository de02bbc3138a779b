from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_query_error import BadRequestQueryError
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.no_webhook_url_error import NoWebhookUrlError
from ...models.not_found_error import NotFoundError
from ...models.rate_limited_error import RateLimitedError
from ...models.redeliver_webhook_response import RedeliverWebhookResponse
from ...models.unauthorized_error import UnauthorizedError
from ...types import UNSET, Response


def _get_kwargs(
    *,
    event_id: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["event_id"] = event_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/redeliver",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | NoWebhookUrlError
    | NotFoundError
    | RateLimitedError
    | RedeliverWebhookResponse
    | UnauthorizedError
    | None
):
    if response.status_code == 202:
        response_202 = RedeliverWebhookResponse.from_dict(response.json())

        return response_202

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
        response_409 = NoWebhookUrlError.from_dict(response.json())

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
    | ForbiddenError
    | InternalServerError
    | NoWebhookUrlError
    | NotFoundError
    | RateLimitedError
    | RedeliverWebhookResponse
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
    event_id: str,
) -> Response[
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | NoWebhookUrlError
    | NotFoundError
    | RateLimitedError
    | RedeliverWebhookResponse
    | UnauthorizedError
]:
    """Queue a webhook event again

     Queues a webhook event again, whether it was delivered, failed, or went to the dead-letter
    queue after its last attempt: the same `webhook-id` and the same body (so a receiver that
    deduplicates by `webhook-id` ignores it if it has it), with a fresh `webhook-timestamp` and
    signature. Events are kept 30 days. Only the caller's events of the key's mode (404
    otherwise). The event is queued through the service's outbox right after the answer and
    delivered with the usual retries; each attempt appears in `GET /api/v1/webhooks/deliveries`.
    Every event type can be redelivered: a verification's (reminders and resends included) and
    a household's `household.completed` (the answer then names `household_id` instead of
    `verification_id`). A store failure is a 500, never a 404.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | NoWebhookUrlError | NotFoundError | RateLimitedError | RedeliverWebhookResponse | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        event_id=event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    event_id: str,
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | NoWebhookUrlError
    | NotFoundError
    | RateLimitedError
    | RedeliverWebhookResponse
    | UnauthorizedError
    | None
):
    """Queue a webhook event again

     Queues a webhook event again, whether it was delivered, failed, or went to the dead-letter
    queue after its last attempt: the same `webhook-id` and the same body (so a receiver that
    deduplicates by `webhook-id` ignores it if it has it), with a fresh `webhook-timestamp` and
    signature. Events are kept 30 days. Only the caller's events of the key's mode (404
    otherwise). The event is queued through the service's outbox right after the answer and
    delivered with the usual retries; each attempt appears in `GET /api/v1/webhooks/deliveries`.
    Every event type can be redelivered: a verification's (reminders and resends included) and
    a household's `household.completed` (the answer then names `household_id` instead of
    `verification_id`). A store failure is a 500, never a 404.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | NoWebhookUrlError | NotFoundError | RateLimitedError | RedeliverWebhookResponse | UnauthorizedError
    """

    return sync_detailed(
        client=client,
        event_id=event_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    event_id: str,
) -> Response[
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | NoWebhookUrlError
    | NotFoundError
    | RateLimitedError
    | RedeliverWebhookResponse
    | UnauthorizedError
]:
    """Queue a webhook event again

     Queues a webhook event again, whether it was delivered, failed, or went to the dead-letter
    queue after its last attempt: the same `webhook-id` and the same body (so a receiver that
    deduplicates by `webhook-id` ignores it if it has it), with a fresh `webhook-timestamp` and
    signature. Events are kept 30 days. Only the caller's events of the key's mode (404
    otherwise). The event is queued through the service's outbox right after the answer and
    delivered with the usual retries; each attempt appears in `GET /api/v1/webhooks/deliveries`.
    Every event type can be redelivered: a verification's (reminders and resends included) and
    a household's `household.completed` (the answer then names `household_id` instead of
    `verification_id`). A store failure is a 500, never a 404.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | NoWebhookUrlError | NotFoundError | RateLimitedError | RedeliverWebhookResponse | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        event_id=event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    event_id: str,
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | NoWebhookUrlError
    | NotFoundError
    | RateLimitedError
    | RedeliverWebhookResponse
    | UnauthorizedError
    | None
):
    """Queue a webhook event again

     Queues a webhook event again, whether it was delivered, failed, or went to the dead-letter
    queue after its last attempt: the same `webhook-id` and the same body (so a receiver that
    deduplicates by `webhook-id` ignores it if it has it), with a fresh `webhook-timestamp` and
    signature. Events are kept 30 days. Only the caller's events of the key's mode (404
    otherwise). The event is queued through the service's outbox right after the answer and
    delivered with the usual retries; each attempt appears in `GET /api/v1/webhooks/deliveries`.
    Every event type can be redelivered: a verification's (reminders and resends included) and
    a household's `household.completed` (the answer then names `household_id` instead of
    `verification_id`). A store failure is a 500, never a 404.

    Args:
        event_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | NoWebhookUrlError | NotFoundError | RateLimitedError | RedeliverWebhookResponse | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            event_id=event_id,
        )
    ).parsed
