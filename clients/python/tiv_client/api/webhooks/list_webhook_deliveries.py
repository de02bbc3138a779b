from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bad_request_query_error import BadRequestQueryError
from ...models.deliveries_subject import DeliveriesSubject
from ...models.forbidden_error import ForbiddenError
from ...models.internal_server_error import InternalServerError
from ...models.list_webhook_deliveries_response import ListWebhookDeliveriesResponse
from ...models.not_found_error import NotFoundError
from ...models.rate_limited_error import RateLimitedError
from ...models.unauthorized_error import UnauthorizedError
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    subject: DeliveriesSubject,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_subject = subject.to_dict()
    params.update(json_subject)

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/webhooks/deliveries",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListWebhookDeliveriesResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    if response.status_code == 200:
        response_200 = ListWebhookDeliveriesResponse.from_dict(response.json())

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
    | ListWebhookDeliveriesResponse
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
    subject: DeliveriesSubject,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> Response[
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListWebhookDeliveriesResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """List a verification's (or a household's) webhook delivery attempts

     Every delivery attempt of the verification's webhooks (every event type, reminders and
    resends included), newest first, kept 30 days: the event (`event_id` is the `webhook-id`
    header the receiver got), the attempt number (1 for the first attempt of a queued
    message; a redelivery starts again at 1), when, the outcome, the receiver's HTTP status
    or the network error class, the duration, and whether it was the final attempt before the
    message went to the dead-letter queue. Additive: `household_id` instead of
    `verification_id` lists a household's own event (`household.completed`, which names no
    verification; its members' events are in their own logs). Only the caller's
    verifications and households of the key's mode (404 otherwise). `limit` and `offset` as
    on the list of verifications.

    Args:
        subject (DeliveriesSubject): Exactly one of the two ids (the server refuses both
            together).
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | ListWebhookDeliveriesResponse | NotFoundError | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        subject=subject,
        limit=limit,
        offset=offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    subject: DeliveriesSubject,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListWebhookDeliveriesResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """List a verification's (or a household's) webhook delivery attempts

     Every delivery attempt of the verification's webhooks (every event type, reminders and
    resends included), newest first, kept 30 days: the event (`event_id` is the `webhook-id`
    header the receiver got), the attempt number (1 for the first attempt of a queued
    message; a redelivery starts again at 1), when, the outcome, the receiver's HTTP status
    or the network error class, the duration, and whether it was the final attempt before the
    message went to the dead-letter queue. Additive: `household_id` instead of
    `verification_id` lists a household's own event (`household.completed`, which names no
    verification; its members' events are in their own logs). Only the caller's
    verifications and households of the key's mode (404 otherwise). `limit` and `offset` as
    on the list of verifications.

    Args:
        subject (DeliveriesSubject): Exactly one of the two ids (the server refuses both
            together).
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | ListWebhookDeliveriesResponse | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return sync_detailed(
        client=client,
        subject=subject,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    subject: DeliveriesSubject,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> Response[
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListWebhookDeliveriesResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
]:
    """List a verification's (or a household's) webhook delivery attempts

     Every delivery attempt of the verification's webhooks (every event type, reminders and
    resends included), newest first, kept 30 days: the event (`event_id` is the `webhook-id`
    header the receiver got), the attempt number (1 for the first attempt of a queued
    message; a redelivery starts again at 1), when, the outcome, the receiver's HTTP status
    or the network error class, the duration, and whether it was the final attempt before the
    message went to the dead-letter queue. Additive: `household_id` instead of
    `verification_id` lists a household's own event (`household.completed`, which names no
    verification; its members' events are in their own logs). Only the caller's
    verifications and households of the key's mode (404 otherwise). `limit` and `offset` as
    on the list of verifications.

    Args:
        subject (DeliveriesSubject): Exactly one of the two ids (the server refuses both
            together).
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BadRequestQueryError | ForbiddenError | InternalServerError | ListWebhookDeliveriesResponse | NotFoundError | RateLimitedError | UnauthorizedError]
    """

    kwargs = _get_kwargs(
        subject=subject,
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    subject: DeliveriesSubject,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> (
    BadRequestQueryError
    | ForbiddenError
    | InternalServerError
    | ListWebhookDeliveriesResponse
    | NotFoundError
    | RateLimitedError
    | UnauthorizedError
    | None
):
    """List a verification's (or a household's) webhook delivery attempts

     Every delivery attempt of the verification's webhooks (every event type, reminders and
    resends included), newest first, kept 30 days: the event (`event_id` is the `webhook-id`
    header the receiver got), the attempt number (1 for the first attempt of a queued
    message; a redelivery starts again at 1), when, the outcome, the receiver's HTTP status
    or the network error class, the duration, and whether it was the final attempt before the
    message went to the dead-letter queue. Additive: `household_id` instead of
    `verification_id` lists a household's own event (`household.completed`, which names no
    verification; its members' events are in their own logs). Only the caller's
    verifications and households of the key's mode (404 otherwise). `limit` and `offset` as
    on the list of verifications.

    Args:
        subject (DeliveriesSubject): Exactly one of the two ids (the server refuses both
            together).
        limit (int | Unset):  Default: 20.
        offset (int | Unset):  Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BadRequestQueryError | ForbiddenError | InternalServerError | ListWebhookDeliveriesResponse | NotFoundError | RateLimitedError | UnauthorizedError
    """

    return (
        await asyncio_detailed(
            client=client,
            subject=subject,
            limit=limit,
            offset=offset,
        )
    ).parsed
