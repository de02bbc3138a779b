from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.income_report_amounts_basis import IncomeReportAmountsBasis
from ..models.verification_method import VerificationMethod
from ..models.verification_method_name import VerificationMethodName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.affordability import Affordability
    from ..models.awaiting_review import AwaitingReview
    from ..models.confidence_factor import ConfidenceFactor
    from ..models.document_review import DocumentReview
    from ..models.excluded_source import ExcludedSource
    from ..models.income_source import IncomeSource
    from ..models.method_attempt import MethodAttempt
    from ..models.report_document import ReportDocument
    from ..models.stability import Stability


T = TypeVar("T", bound="IncomeReport")


@_attrs_define
class IncomeReport:
    """Current monthly income, built by one set of income rules from each source's dated
    payments (docs/income-report.md). `income_sources` lists the counted sources: their
    `monthly_income` values add up to `total_monthly_income`. Sources seen and not counted
    (a one-off, an ended job, money that is not income) are in `excluded_sources`. Per pay
    period, a month is weekly x 52/12, biweekly x 26/12, semi-monthly x 2, daily x 365/12;
    each source is rounded to cents once and the total is their sum.

        Attributes:
            total_monthly_income (float): An amount in the currency of the rent, in whole cents at most.
            income_sources (list[IncomeSource]):
            verification_method (VerificationMethod): `bank`: bank-account income through a provider; `payroll`: payroll
                data; `document`: documents.
            confidence_score (float): Two decimals, the product of the factors in `confidence_factors`: the method
                (payroll 0.95, bank 0.90, document 0.70, weighted by income), the provider's own
                confidence, history (0.7 + 0.3 x months observed / 12), fewer than three payments
                (1 - 0.15 x their share of income), irregular income (1 - 0.10 x its share), a
                declining trend (0.90), any source not counted (0.95) and, for documents, counted
                income that rests on an undetermined document (0.80). 0 without income.
            rent_to_income_ratio (float | None): monthly_rent / total_monthly_income, 4 decimals; null without monthly_rent
                or without
                income. With `rent_subsidy_monthly`, the tenant's portion (rent minus subsidy) takes the
                place of monthly_rent.
            passes_3x_rule (bool | None): total_monthly_income >= 3 x monthly_rent (false with no income); null without
                monthly_rent. With `rent_subsidy_monthly`, computed on the tenant's portion (rent minus
                subsidy). The landlord's own multiple is in `affordability`.
            as_of (datetime.date): The end of the provider's data window. Every figure is as of this date, so the report
                can be rebuilt from the same data, and a source that stopped paying is seen as ended.
            excluded_sources (list[ExcludedSource]): Sources seen and not counted, each with its reason. Empty when all
                count.
            confidence_factors (list[ConfidenceFactor]): Every factor that lowered `confidence_score` below 1, as a
                multiplier.
            amounts_basis (IncomeReportAmountsBasis | Unset): `net` for bank deposits (after taxes and deductions), `gross`
                for payroll or document figures.
            affordability (Affordability | Unset): Present when the verification has a monthly_rent. Exact arithmetic in
                cents (the multiple
                in hundredths): `meets_requirement` is total_monthly_income >= income_multiple x
                tenant_portion; `income_required` is that product rounded up to the cent.
            stability (Stability | Unset): How steady the income is, from the dated payments the provider reported (absent
                when it
                gave none). `months_observed`: one pay period before the first payment to the last, in
                months. `regularity`: coefficient of variation of the payment amounts or of the days
                between payments, whichever is larger (<= 0.10 regular, <= 0.35 variable, else irregular;
                fewer than 3 payments: insufficient_history). `trend`: the monthly rate of the last three
                months (a whole number of pay periods) against the months before; +-10% or more is
                rising/declining; insufficient_history with less than a month before. Overall: the
                longest months_observed, the latest payment, the income-weighted regularity and the summed
                rates of the sources.
            attempts (list[MethodAttempt] | Unset): Additive. Every method the tenant tried, oldest first, with how it ended
                and when, when the page routed between methods; absent when the first method was the only one tried.
            methods_used (list[VerificationMethodName] | Unset): Additive. Every method that saw a source of the report, in
                the order first seen; `verification_method` is the one behind most of the counted income.
            provider_forecast_monthly_income (float | Unset): The provider's own forecast of the monthly income of the
                sources it forecast (Plaid Check's Income Insights), beside `total_monthly_income`, which the income rules make.
            documents (list[ReportDocument] | Unset): Present when the tenant finished with uploaded documents
                (`verification_method`
                `document`): each document with its verdict and every check, in upload order.
                docs/documents.md states the checks and the verdict rule.
            needs_review (bool | Unset): Present with `documents`. True when a document is not `clean` (`edited`,
                `inconsistent` or `undetermined`), or its figures were typed by the tenant: a person
                should look at the originals.
            awaiting_review (AwaitingReview | Unset): Present while some documents' income counts only once the landlord
                accepts them with
                `POST /api/v1/verify/review`: `inconsistent` and `undetermined` documents, and figures the
                tenant typed. The totals and the 3x rule leave them out until then.
            revision (int | Unset): Additive. 1 when the report is made; one more each time it is computed again, as when
                the landlord accepts its documents with `POST /api/v1/verify/review`.
            document_review (DocumentReview | Unset): The landlord's review of the documents, as recorded.
            local_sandbox (bool | Unset): Present only on the local development stack (`make dev`), on a live verification
                whose
                income came from its sandbox scenarios: invented data. A deployed service never has it.
            tenant_note (str | Unset): A note the tenant added on their page after completion (once; up to 500 characters,
                line breaks kept). Absent until they add one; the `verification.completed` webhook,
                sent before, never carries it. Also printed in the report PDF.
    """

    total_monthly_income: float
    income_sources: list[IncomeSource]
    verification_method: VerificationMethod
    confidence_score: float
    rent_to_income_ratio: float | None
    passes_3x_rule: bool | None
    as_of: datetime.date
    excluded_sources: list[ExcludedSource]
    confidence_factors: list[ConfidenceFactor]
    amounts_basis: IncomeReportAmountsBasis | Unset = UNSET
    affordability: Affordability | Unset = UNSET
    stability: Stability | Unset = UNSET
    attempts: list[MethodAttempt] | Unset = UNSET
    methods_used: list[VerificationMethodName] | Unset = UNSET
    provider_forecast_monthly_income: float | Unset = UNSET
    documents: list[ReportDocument] | Unset = UNSET
    needs_review: bool | Unset = UNSET
    awaiting_review: AwaitingReview | Unset = UNSET
    revision: int | Unset = UNSET
    document_review: DocumentReview | Unset = UNSET
    local_sandbox: bool | Unset = UNSET
    tenant_note: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        total_monthly_income = self.total_monthly_income

        income_sources = []
        for income_sources_item_data in self.income_sources:
            income_sources_item = income_sources_item_data.to_dict()
            income_sources.append(income_sources_item)

        verification_method = self.verification_method.value

        confidence_score = self.confidence_score

        rent_to_income_ratio: float | None
        rent_to_income_ratio = self.rent_to_income_ratio

        passes_3x_rule: bool | None
        passes_3x_rule = self.passes_3x_rule

        as_of = self.as_of.isoformat()

        excluded_sources = []
        for excluded_sources_item_data in self.excluded_sources:
            excluded_sources_item = excluded_sources_item_data.to_dict()
            excluded_sources.append(excluded_sources_item)

        confidence_factors = []
        for confidence_factors_item_data in self.confidence_factors:
            confidence_factors_item = confidence_factors_item_data.to_dict()
            confidence_factors.append(confidence_factors_item)

        amounts_basis: str | Unset = UNSET
        if not isinstance(self.amounts_basis, Unset):
            amounts_basis = self.amounts_basis.value

        affordability: dict[str, Any] | Unset = UNSET
        if not isinstance(self.affordability, Unset):
            affordability = self.affordability.to_dict()

        stability: dict[str, Any] | Unset = UNSET
        if not isinstance(self.stability, Unset):
            stability = self.stability.to_dict()

        attempts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempts, Unset):
            attempts = []
            for attempts_item_data in self.attempts:
                attempts_item = attempts_item_data.to_dict()
                attempts.append(attempts_item)

        methods_used: list[str] | Unset = UNSET
        if not isinstance(self.methods_used, Unset):
            methods_used = []
            for methods_used_item_data in self.methods_used:
                methods_used_item = methods_used_item_data.value
                methods_used.append(methods_used_item)

        provider_forecast_monthly_income = self.provider_forecast_monthly_income

        documents: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.documents, Unset):
            documents = []
            for documents_item_data in self.documents:
                documents_item = documents_item_data.to_dict()
                documents.append(documents_item)

        needs_review = self.needs_review

        awaiting_review: dict[str, Any] | Unset = UNSET
        if not isinstance(self.awaiting_review, Unset):
            awaiting_review = self.awaiting_review.to_dict()

        revision = self.revision

        document_review: dict[str, Any] | Unset = UNSET
        if not isinstance(self.document_review, Unset):
            document_review = self.document_review.to_dict()

        local_sandbox = self.local_sandbox

        tenant_note = self.tenant_note

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "total_monthly_income": total_monthly_income,
                "income_sources": income_sources,
                "verification_method": verification_method,
                "confidence_score": confidence_score,
                "rent_to_income_ratio": rent_to_income_ratio,
                "passes_3x_rule": passes_3x_rule,
                "as_of": as_of,
                "excluded_sources": excluded_sources,
                "confidence_factors": confidence_factors,
            }
        )
        if amounts_basis is not UNSET:
            field_dict["amounts_basis"] = amounts_basis
        if affordability is not UNSET:
            field_dict["affordability"] = affordability
        if stability is not UNSET:
            field_dict["stability"] = stability
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if methods_used is not UNSET:
            field_dict["methods_used"] = methods_used
        if provider_forecast_monthly_income is not UNSET:
            field_dict["provider_forecast_monthly_income"] = (
                provider_forecast_monthly_income
            )
        if documents is not UNSET:
            field_dict["documents"] = documents
        if needs_review is not UNSET:
            field_dict["needs_review"] = needs_review
        if awaiting_review is not UNSET:
            field_dict["awaiting_review"] = awaiting_review
        if revision is not UNSET:
            field_dict["revision"] = revision
        if document_review is not UNSET:
            field_dict["document_review"] = document_review
        if local_sandbox is not UNSET:
            field_dict["local_sandbox"] = local_sandbox
        if tenant_note is not UNSET:
            field_dict["tenant_note"] = tenant_note

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.affordability import Affordability
        from ..models.awaiting_review import AwaitingReview
        from ..models.confidence_factor import ConfidenceFactor
        from ..models.document_review import DocumentReview
        from ..models.excluded_source import ExcludedSource
        from ..models.income_source import IncomeSource
        from ..models.method_attempt import MethodAttempt
        from ..models.report_document import ReportDocument
        from ..models.stability import Stability

        d = dict(src_dict)
        total_monthly_income = d.pop("total_monthly_income")

        income_sources = []
        _income_sources = d.pop("income_sources")
        for income_sources_item_data in _income_sources:
            income_sources_item = IncomeSource.from_dict(income_sources_item_data)

            income_sources.append(income_sources_item)

        verification_method = VerificationMethod(d.pop("verification_method"))

        confidence_score = d.pop("confidence_score")

        def _parse_rent_to_income_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        rent_to_income_ratio = _parse_rent_to_income_ratio(
            d.pop("rent_to_income_ratio")
        )

        def _parse_passes_3x_rule(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        passes_3x_rule = _parse_passes_3x_rule(d.pop("passes_3x_rule"))

        as_of = datetime.date.fromisoformat(d.pop("as_of"))

        excluded_sources = []
        _excluded_sources = d.pop("excluded_sources")
        for excluded_sources_item_data in _excluded_sources:
            excluded_sources_item = ExcludedSource.from_dict(excluded_sources_item_data)

            excluded_sources.append(excluded_sources_item)

        confidence_factors = []
        _confidence_factors = d.pop("confidence_factors")
        for confidence_factors_item_data in _confidence_factors:
            confidence_factors_item = ConfidenceFactor.from_dict(
                confidence_factors_item_data
            )

            confidence_factors.append(confidence_factors_item)

        _amounts_basis = d.pop("amounts_basis", UNSET)
        amounts_basis: IncomeReportAmountsBasis | Unset
        if isinstance(_amounts_basis, Unset):
            amounts_basis = UNSET
        else:
            amounts_basis = IncomeReportAmountsBasis(_amounts_basis)

        _affordability = d.pop("affordability", UNSET)
        affordability: Affordability | Unset
        if isinstance(_affordability, Unset):
            affordability = UNSET
        else:
            affordability = Affordability.from_dict(_affordability)

        _stability = d.pop("stability", UNSET)
        stability: Stability | Unset
        if isinstance(_stability, Unset):
            stability = UNSET
        else:
            stability = Stability.from_dict(_stability)

        _attempts = d.pop("attempts", UNSET)
        attempts: list[MethodAttempt] | Unset = UNSET
        if _attempts is not UNSET:
            attempts = []
            for attempts_item_data in _attempts:
                attempts_item = MethodAttempt.from_dict(attempts_item_data)

                attempts.append(attempts_item)

        _methods_used = d.pop("methods_used", UNSET)
        methods_used: list[VerificationMethodName] | Unset = UNSET
        if _methods_used is not UNSET:
            methods_used = []
            for methods_used_item_data in _methods_used:
                methods_used_item = VerificationMethodName(methods_used_item_data)

                methods_used.append(methods_used_item)

        provider_forecast_monthly_income = d.pop(
            "provider_forecast_monthly_income", UNSET
        )

        _documents = d.pop("documents", UNSET)
        documents: list[ReportDocument] | Unset = UNSET
        if _documents is not UNSET:
            documents = []
            for documents_item_data in _documents:
                documents_item = ReportDocument.from_dict(documents_item_data)

                documents.append(documents_item)

        needs_review = d.pop("needs_review", UNSET)

        _awaiting_review = d.pop("awaiting_review", UNSET)
        awaiting_review: AwaitingReview | Unset
        if isinstance(_awaiting_review, Unset):
            awaiting_review = UNSET
        else:
            awaiting_review = AwaitingReview.from_dict(_awaiting_review)

        revision = d.pop("revision", UNSET)

        _document_review = d.pop("document_review", UNSET)
        document_review: DocumentReview | Unset
        if isinstance(_document_review, Unset):
            document_review = UNSET
        else:
            document_review = DocumentReview.from_dict(_document_review)

        local_sandbox = d.pop("local_sandbox", UNSET)

        tenant_note = d.pop("tenant_note", UNSET)

        income_report = cls(
            total_monthly_income=total_monthly_income,
            income_sources=income_sources,
            verification_method=verification_method,
            confidence_score=confidence_score,
            rent_to_income_ratio=rent_to_income_ratio,
            passes_3x_rule=passes_3x_rule,
            as_of=as_of,
            excluded_sources=excluded_sources,
            confidence_factors=confidence_factors,
            amounts_basis=amounts_basis,
            affordability=affordability,
            stability=stability,
            attempts=attempts,
            methods_used=methods_used,
            provider_forecast_monthly_income=provider_forecast_monthly_income,
            documents=documents,
            needs_review=needs_review,
            awaiting_review=awaiting_review,
            revision=revision,
            document_review=document_review,
            local_sandbox=local_sandbox,
            tenant_note=tenant_note,
        )

        return income_report
