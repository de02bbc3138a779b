//! The one list of the service's Lambda functions: each one's name (its crate in `functions/`, its
//! binary in template.yaml, its folder in `events/`), what triggers it and, for the HTTP ones, its
//! routes. The local server routes with it, and the tests check template.yaml and `events/`
//! against it, so a new function is declared here first.

/// One Lambda function of the service. `admin` is a command-line tool, not listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Function {
    CreateVerification,
    GetVerification,
    CancelVerification,
    ListVerifications,
    GetUsage,
    GetReport,
    TenantPortal,
    PublishEvents,
    RetryEvents,
    DeliverWebhook,
    ExpireVerifications,
    SendReminders,
    ListWebhookDeliveries,
    RedeliverWebhook,
    ResendVerification,
    CreateHousehold,
    GetHousehold,
    CancelHousehold,
    EraseVerificationData,
    AnalyzeDocument,
    ListDocuments,
    ReviewDocuments,
    ProviderWebhooks,
}

/// What invokes a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// Routes of the HttpApi.
    Http(&'static [Route]),
    /// The table's DynamoDB stream (with the template's filter).
    DynamoDbStream,
    /// An SQS queue (for `analyze-document`, the queue the documents bucket notifies).
    Sqs,
    /// One-time EventBridge Scheduler schedules (asynchronous invocation).
    Schedule,
}

/// One HttpApi route: a method and a path template (`{name}` is a path parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
}

/// The tenant page behind the secure link; GET shows it, POST submits its forms.
pub const TENANT_LINK: &str = "/t/{verification_id}/{token}";

/// The tenant's copy of the report PDF, under the link (same token).
pub const TENANT_REPORT_PDF: &str = "/t/{verification_id}/{token}/report.pdf";

/// The sandbox's sample documents, under the link (same token). `{sample}` is the whole last
/// segment, `<name>.pdf` (infra/openapi.yaml's `{sample}.pdf`): an API Gateway path variable
/// fills a whole segment, and the handler reads the name from it.
pub const TENANT_SAMPLE: &str = "/t/{verification_id}/{token}/samples/{sample}";

/// Plaid's webhooks (`provider-webhooks`); the link token names it as Plaid Check's webhook.
pub const PLAID_WEBHOOKS: &str = "/webhooks/providers/plaid";
/// Argyle's webhooks (`provider-webhooks`), the URL of the stack's subscription.
pub const ARGYLE_WEBHOOKS: &str = "/webhooks/providers/argyle";

/// Households (co-applicants and guarantors): POST creates, GET reads, DELETE cancels.
pub const HOUSEHOLDS: &str = "/api/v1/households";

impl Function {
    /// Every function, in the order the tests and the bench report them.
    pub const ALL: [Function; 23] = [
        Function::CreateVerification,
        Function::GetVerification,
        Function::CancelVerification,
        Function::ListVerifications,
        Function::GetUsage,
        Function::GetReport,
        Function::TenantPortal,
        Function::PublishEvents,
        Function::ExpireVerifications,
        Function::DeliverWebhook,
        Function::RetryEvents,
        Function::SendReminders,
        Function::ListWebhookDeliveries,
        Function::RedeliverWebhook,
        Function::ResendVerification,
        Function::CreateHousehold,
        Function::GetHousehold,
        Function::CancelHousehold,
        Function::EraseVerificationData,
        Function::AnalyzeDocument,
        Function::ListDocuments,
        Function::ReviewDocuments,
        Function::ProviderWebhooks,
    ];

    /// The name of its crate, binary and `events/` folder.
    pub const fn name(self) -> &'static str {
        match self {
            Function::CreateVerification => "create-verification",
            Function::GetVerification => "get-verification",
            Function::CancelVerification => "cancel-verification",
            Function::ListVerifications => "list-verifications",
            Function::GetUsage => "get-usage",
            Function::GetReport => "get-report",
            Function::TenantPortal => "tenant-portal",
            Function::PublishEvents => "publish-events",
            Function::RetryEvents => "retry-events",
            Function::DeliverWebhook => "deliver-webhook",
            Function::ExpireVerifications => "expire-verifications",
            Function::SendReminders => "send-reminders",
            Function::ListWebhookDeliveries => "list-webhook-deliveries",
            Function::RedeliverWebhook => "redeliver-webhook",
            Function::ResendVerification => "resend-verification",
            Function::CreateHousehold => "create-household",
            Function::GetHousehold => "get-household",
            Function::CancelHousehold => "cancel-household",
            Function::EraseVerificationData => "erase-verification-data",
            Function::AnalyzeDocument => "analyze-document",
            Function::ListDocuments => "list-documents",
            Function::ReviewDocuments => "review-documents",
            Function::ProviderWebhooks => "provider-webhooks",
        }
    }

    pub const fn trigger(self) -> Trigger {
        match self {
            Function::CreateVerification => Trigger::Http(&[Route {
                method: "POST",
                path: "/api/v1/verify",
            }]),
            Function::GetVerification => Trigger::Http(&[Route {
                method: "GET",
                path: "/api/v1/verify",
            }]),
            Function::CancelVerification => Trigger::Http(&[Route {
                method: "DELETE",
                path: "/api/v1/verify",
            }]),
            Function::ListVerifications => Trigger::Http(&[Route {
                method: "GET",
                path: "/api/v1/verifications",
            }]),
            Function::GetUsage => Trigger::Http(&[Route {
                method: "GET",
                path: "/api/v1/usage",
            }]),
            Function::GetReport => Trigger::Http(&[Route {
                method: "GET",
                path: "/api/v1/verify/report",
            }]),
            Function::ListDocuments => Trigger::Http(&[Route {
                method: "GET",
                path: "/api/v1/verify/documents",
            }]),
            Function::ReviewDocuments => Trigger::Http(&[Route {
                method: "POST",
                path: "/api/v1/verify/review",
            }]),
            Function::TenantPortal => Trigger::Http(&[
                Route {
                    method: "GET",
                    path: TENANT_LINK,
                },
                Route {
                    method: "POST",
                    path: TENANT_LINK,
                },
                Route {
                    method: "GET",
                    path: TENANT_REPORT_PDF,
                },
                Route {
                    method: "GET",
                    path: TENANT_SAMPLE,
                },
            ]),
            Function::ListWebhookDeliveries => Trigger::Http(&[Route {
                method: "GET",
                path: "/api/v1/webhooks/deliveries",
            }]),
            Function::RedeliverWebhook => Trigger::Http(&[Route {
                method: "POST",
                path: "/api/v1/webhooks/redeliver",
            }]),
            Function::ResendVerification => Trigger::Http(&[Route {
                method: "POST",
                path: "/api/v1/verify/resend",
            }]),
            Function::CreateHousehold => Trigger::Http(&[Route {
                method: "POST",
                path: HOUSEHOLDS,
            }]),
            Function::GetHousehold => Trigger::Http(&[Route {
                method: "GET",
                path: HOUSEHOLDS,
            }]),
            Function::CancelHousehold => Trigger::Http(&[Route {
                method: "DELETE",
                path: HOUSEHOLDS,
            }]),
            Function::EraseVerificationData => Trigger::Http(&[Route {
                method: "DELETE",
                path: "/api/v1/verify/data",
            }]),
            // One route per data provider.
            Function::ProviderWebhooks => Trigger::Http(&[
                Route {
                    method: "POST",
                    path: PLAID_WEBHOOKS,
                },
                Route {
                    method: "POST",
                    path: ARGYLE_WEBHOOKS,
                },
            ]),
            Function::PublishEvents | Function::ExpireVerifications => Trigger::DynamoDbStream,
            Function::RetryEvents | Function::DeliverWebhook => Trigger::Sqs,
            Function::SendReminders => Trigger::Schedule,
            Function::AnalyzeDocument => Trigger::Sqs,
        }
    }

    /// Its HttpApi routes (none for stream and queue functions).
    pub fn routes(self) -> &'static [Route] {
        match self.trigger() {
            Trigger::Http(routes) => routes,
            Trigger::DynamoDbStream | Trigger::Sqs | Trigger::Schedule => &[],
        }
    }

    pub fn is_http(self) -> bool {
        !self.routes().is_empty()
    }

    /// Called by API clients with their key (under `/api/v1`), as opposed to the tenant's pages.
    pub fn is_api(self) -> bool {
        self.is_http() && self.routes().iter().all(|r| r.path.starts_with("/api/v1/"))
    }

    pub fn from_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Route {
    /// Whether a request path falls under this route. A template with parameters covers
    /// everything under its static prefix (`/t/...`): its handler parses the rest itself and
    /// answers for malformed links and other methods.
    pub fn covers(&self, path: &str) -> bool {
        match self.path.find('{') {
            Some(start) => path.starts_with(&self.path[..start]),
            None => path == self.path,
        }
    }
}

/// Where a request goes: the function serving this method on this path, or else the methods the
/// path allows (empty: no such path).
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    Function(Function),
    MethodNotAllowed { allow: String },
    NotFound,
}

/// Routes a request like the HttpApi does. Allowed methods are listed in a fixed order (GET,
/// POST, PUT, PATCH, DELETE) whatever the order of the table.
pub fn resolve(method: &str, path: &str) -> Resolved {
    let mut allowed = Vec::new();
    for function in Function::ALL {
        for route in function.routes().iter().filter(|r| r.covers(path)) {
            // Parameterised paths take any method: their handler answers 405 itself.
            if route.method == method || route.path.contains('{') {
                return Resolved::Function(function);
            }
            allowed.push(route.method);
        }
    }
    if allowed.is_empty() {
        return Resolved::NotFound;
    }
    const ORDER: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    allowed.sort_by_key(|m| ORDER.iter().position(|o| o == m));
    Resolved::MethodNotAllowed {
        allow: allowed.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for function in Function::ALL {
            assert_eq!(Function::from_name(function.name()), Some(function));
        }
        let mut sorted = Function::ALL.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), Function::ALL.len());
    }

    #[test]
    fn requests_resolve_like_the_http_api() {
        assert_eq!(
            resolve("POST", "/api/v1/verify"),
            Resolved::Function(Function::CreateVerification)
        );
        assert_eq!(
            resolve("DELETE", "/api/v1/verify"),
            Resolved::Function(Function::CancelVerification)
        );
        assert_eq!(
            resolve("PUT", "/api/v1/verify"),
            Resolved::MethodNotAllowed {
                allow: "GET, POST, DELETE".into()
            }
        );
        assert_eq!(
            resolve("POST", "/api/v1/usage"),
            Resolved::MethodNotAllowed {
                allow: "GET".into()
            }
        );
        assert_eq!(
            resolve("PUT", "/t/abc/def"),
            Resolved::Function(Function::TenantPortal)
        );
        assert_eq!(resolve("GET", "/t"), Resolved::NotFound);
        assert_eq!(
            resolve("DELETE", "/api/v1/households"),
            Resolved::Function(Function::CancelHousehold)
        );
        assert_eq!(
            resolve("PUT", "/api/v1/households"),
            Resolved::MethodNotAllowed {
                allow: "GET, POST, DELETE".into()
            }
        );
        assert_eq!(resolve("GET", "/api/v1/verify/x"), Resolved::NotFound);
        assert_eq!(
            resolve("DELETE", "/api/v1/verify/data"),
            Resolved::Function(Function::EraseVerificationData)
        );
        assert_eq!(
            resolve("GET", "/api/v1/verify/data"),
            Resolved::MethodNotAllowed {
                allow: "DELETE".into()
            }
        );
        assert_eq!(
            resolve("GET", "/api/v1/verify/report"),
            Resolved::Function(Function::GetReport)
        );
        assert_eq!(
            resolve("POST", "/api/v1/verify/report"),
            Resolved::MethodNotAllowed {
                allow: "GET".into()
            }
        );
    }
}
