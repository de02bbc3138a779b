from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.tenant_page_action_body import TenantPageActionBody
from ...types import Response


def _get_kwargs(
    verification_id: UUID,
    token: str,
    *,
    body: TenantPageActionBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/t/{verification_id}/{token}".format(
            verification_id=quote(str(verification_id), safe=""),
            token=quote(str(token), safe=""),
        ),
    }

    _kwargs["data"] = body.to_dict()
    headers["Content-Type"] = "application/x-www-form-urlencoded"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 303:
        response_303 = cast(Any, None)
        return response_303

    if response.status_code == 400:
        response_400 = response.text
        return response_400

    if response.status_code == 404:
        response_404 = response.text
        return response_404

    if response.status_code == 410:
        response_410 = response.text
        return response_410

    if response.status_code == 413:
        response_413 = response.text
        return response_413

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
) -> Response[Any | str]:
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
    body: TenantPageActionBody,
) -> Response[Any | str]:
    """Tenant page form

     The page's forms. `action=consent` with `agree=yes` is the tenant's first action: it records
    the consent (time, consent text version, the provider's user for live verifications) and
    moves a `pending` verification to `in_progress` (webhook `verification.in_progress`), in one
    conditional write. `action=connect` fetches the income (a sandbox `scenario` for test
    verifications, the provider's report for live ones) and completes or fails the
    verification. Both answer 303 back to the link only when their write was applied.
    `action=start` (live verifications with a real provider, after consent) asks the provider for
    a fresh link token and answers 200 with its widget, writing nothing: a GET of the page asks
    the provider nothing, so a link scanner costs nothing. A form
    that no longer fits answers the page as it now is (200, or 410 once expired or cancelled);
    a missing tick, a missing scenario, connecting before consenting or an unknown action
    answers 400 with the page and a notice; an `agree` or `scenario` value outside the
    form's own answers 400 with the page as it is, whatever the state. `action=note` on a completed
    verification stores
    the tenant's `note` (trimmed, 1 to 500 characters, line breaks kept) once, in one
    conditional write (completed and no note yet), and answers 303; an empty, too long or
    control-character note answers 400 with a notice; a second note (or one racing another
    tab) answers the page as it now is, showing the note that was kept. The landlord reads it
    as `income_report.tenant_note` and in the report PDF. `action=switch_method` ("use another
    way", after consent) names in `method` the next of the verification's open methods: it
    records the method offered now as `abandoned` in the report's `attempts`, in one
    conditional write on the tries as read, keeps the consent, and answers 303; the page then
    offers `method`. A `method` that is not the next one (another tab switched first) answers
    the page as it now is; a missing `method`, or one outside the enum, answers 400 with the
    page and a notice, whatever the state. `more=yes` on `action=connect` ("add another income
    source") holds a connection's income, when it finds some and another method remains: the
    try is recorded as `succeeded` in one conditional write on the tries as read, and the
    verification stays in progress. `action=finish` then builds the report from the held
    income, and `action=finish_documents` from it and the documents; a later connection
    without `more` completes with every held income.

    Args:
        verification_id (UUID):
        token (str):
        body (TenantPageActionBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | str]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
        token=token,
        body=body,
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
    body: TenantPageActionBody,
) -> Any | str | None:
    """Tenant page form

     The page's forms. `action=consent` with `agree=yes` is the tenant's first action: it records
    the consent (time, consent text version, the provider's user for live verifications) and
    moves a `pending` verification to `in_progress` (webhook `verification.in_progress`), in one
    conditional write. `action=connect` fetches the income (a sandbox `scenario` for test
    verifications, the provider's report for live ones) and completes or fails the
    verification. Both answer 303 back to the link only when their write was applied.
    `action=start` (live verifications with a real provider, after consent) asks the provider for
    a fresh link token and answers 200 with its widget, writing nothing: a GET of the page asks
    the provider nothing, so a link scanner costs nothing. A form
    that no longer fits answers the page as it now is (200, or 410 once expired or cancelled);
    a missing tick, a missing scenario, connecting before consenting or an unknown action
    answers 400 with the page and a notice; an `agree` or `scenario` value outside the
    form's own answers 400 with the page as it is, whatever the state. `action=note` on a completed
    verification stores
    the tenant's `note` (trimmed, 1 to 500 characters, line breaks kept) once, in one
    conditional write (completed and no note yet), and answers 303; an empty, too long or
    control-character note answers 400 with a notice; a second note (or one racing another
    tab) answers the page as it now is, showing the note that was kept. The landlord reads it
    as `income_report.tenant_note` and in the report PDF. `action=switch_method` ("use another
    way", after consent) names in `method` the next of the verification's open methods: it
    records the method offered now as `abandoned` in the report's `attempts`, in one
    conditional write on the tries as read, keeps the consent, and answers 303; the page then
    offers `method`. A `method` that is not the next one (another tab switched first) answers
    the page as it now is; a missing `method`, or one outside the enum, answers 400 with the
    page and a notice, whatever the state. `more=yes` on `action=connect` ("add another income
    source") holds a connection's income, when it finds some and another method remains: the
    try is recorded as `succeeded` in one conditional write on the tries as read, and the
    verification stays in progress. `action=finish` then builds the report from the held
    income, and `action=finish_documents` from it and the documents; a later connection
    without `more` completes with every held income.

    Args:
        verification_id (UUID):
        token (str):
        body (TenantPageActionBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | str
    """

    return sync_detailed(
        verification_id=verification_id,
        token=token,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    verification_id: UUID,
    token: str,
    *,
    client: AuthenticatedClient | Client,
    body: TenantPageActionBody,
) -> Response[Any | str]:
    """Tenant page form

     The page's forms. `action=consent` with `agree=yes` is the tenant's first action: it records
    the consent (time, consent text version, the provider's user for live verifications) and
    moves a `pending` verification to `in_progress` (webhook `verification.in_progress`), in one
    conditional write. `action=connect` fetches the income (a sandbox `scenario` for test
    verifications, the provider's report for live ones) and completes or fails the
    verification. Both answer 303 back to the link only when their write was applied.
    `action=start` (live verifications with a real provider, after consent) asks the provider for
    a fresh link token and answers 200 with its widget, writing nothing: a GET of the page asks
    the provider nothing, so a link scanner costs nothing. A form
    that no longer fits answers the page as it now is (200, or 410 once expired or cancelled);
    a missing tick, a missing scenario, connecting before consenting or an unknown action
    answers 400 with the page and a notice; an `agree` or `scenario` value outside the
    form's own answers 400 with the page as it is, whatever the state. `action=note` on a completed
    verification stores
    the tenant's `note` (trimmed, 1 to 500 characters, line breaks kept) once, in one
    conditional write (completed and no note yet), and answers 303; an empty, too long or
    control-character note answers 400 with a notice; a second note (or one racing another
    tab) answers the page as it now is, showing the note that was kept. The landlord reads it
    as `income_report.tenant_note` and in the report PDF. `action=switch_method` ("use another
    way", after consent) names in `method` the next of the verification's open methods: it
    records the method offered now as `abandoned` in the report's `attempts`, in one
    conditional write on the tries as read, keeps the consent, and answers 303; the page then
    offers `method`. A `method` that is not the next one (another tab switched first) answers
    the page as it now is; a missing `method`, or one outside the enum, answers 400 with the
    page and a notice, whatever the state. `more=yes` on `action=connect` ("add another income
    source") holds a connection's income, when it finds some and another method remains: the
    try is recorded as `succeeded` in one conditional write on the tries as read, and the
    verification stays in progress. `action=finish` then builds the report from the held
    income, and `action=finish_documents` from it and the documents; a later connection
    without `more` completes with every held income.

    Args:
        verification_id (UUID):
        token (str):
        body (TenantPageActionBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | str]
    """

    kwargs = _get_kwargs(
        verification_id=verification_id,
        token=token,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    verification_id: UUID,
    token: str,
    *,
    client: AuthenticatedClient | Client,
    body: TenantPageActionBody,
) -> Any | str | None:
    """Tenant page form

     The page's forms. `action=consent` with `agree=yes` is the tenant's first action: it records
    the consent (time, consent text version, the provider's user for live verifications) and
    moves a `pending` verification to `in_progress` (webhook `verification.in_progress`), in one
    conditional write. `action=connect` fetches the income (a sandbox `scenario` for test
    verifications, the provider's report for live ones) and completes or fails the
    verification. Both answer 303 back to the link only when their write was applied.
    `action=start` (live verifications with a real provider, after consent) asks the provider for
    a fresh link token and answers 200 with its widget, writing nothing: a GET of the page asks
    the provider nothing, so a link scanner costs nothing. A form
    that no longer fits answers the page as it now is (200, or 410 once expired or cancelled);
    a missing tick, a missing scenario, connecting before consenting or an unknown action
    answers 400 with the page and a notice; an `agree` or `scenario` value outside the
    form's own answers 400 with the page as it is, whatever the state. `action=note` on a completed
    verification stores
    the tenant's `note` (trimmed, 1 to 500 characters, line breaks kept) once, in one
    conditional write (completed and no note yet), and answers 303; an empty, too long or
    control-character note answers 400 with a notice; a second note (or one racing another
    tab) answers the page as it now is, showing the note that was kept. The landlord reads it
    as `income_report.tenant_note` and in the report PDF. `action=switch_method` ("use another
    way", after consent) names in `method` the next of the verification's open methods: it
    records the method offered now as `abandoned` in the report's `attempts`, in one
    conditional write on the tries as read, keeps the consent, and answers 303; the page then
    offers `method`. A `method` that is not the next one (another tab switched first) answers
    the page as it now is; a missing `method`, or one outside the enum, answers 400 with the
    page and a notice, whatever the state. `more=yes` on `action=connect` ("add another income
    source") holds a connection's income, when it finds some and another method remains: the
    try is recorded as `succeeded` in one conditional write on the tries as read, and the
    verification stays in progress. `action=finish` then builds the report from the held
    income, and `action=finish_documents` from it and the documents; a later connection
    without `more` completes with every held income.

    Args:
        verification_id (UUID):
        token (str):
        body (TenantPageActionBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | str
    """

    return (
        await asyncio_detailed(
            verification_id=verification_id,
            token=token,
            client=client,
            body=body,
        )
    ).parsed
