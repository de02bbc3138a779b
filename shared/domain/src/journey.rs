//! The tenant's journey on the page behind the link, as one decision: from the verification as
//! read and what the stack serves, what the tenant may do next (`next_step`). The page renders
//! the answer and each of its actions checks against it; no other place works out the order of
//! the methods.
//!
//! The order: a closed verification is done, failed, cancelled or expired; an open one needs the
//! consent first (and, with a real provider, the provider's user made then); after it, the
//! verification's methods (its own, else every method the page serves) less those tried are open,
//! in the landlord's order. The first open method other than uploaded documents is the one to
//! connect, the next open one the fallback ("use another way"); uploads sit beside them whenever
//! documents are one of the methods. While the provider collects the data of a finished
//! connection (`awaiting`), the tenant waits: the try resolves by the provider's webhook or the
//! sweep, through `after_connection` like any other connection.

mod connection;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};

pub use connection::{Connection, after_connection, record_attempts};

use crate::documents::record::{MAX_DOCUMENTS, MAX_UPLOADS, ready_to_finish};
use crate::income::VerificationMethod;
use crate::methods::{self, AttemptOutcome, MethodAttempt};
use crate::{Mode, Status, Verification};

/// What the page's stack serves, built once per request from its providers and buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served<'a> {
    /// The methods of the live income providers, in the stack's order (bank for Plaid Check,
    /// payroll for Argyle: `INCOME_PROVIDERS`).
    pub live_methods: &'a [VerificationMethod],
    /// The live provider is the local stack's sandbox: the tenant picks scenarios.
    pub live_simulated: bool,
    /// The methods whose live provider needs the tenant's identity at consent (Plaid Check's
    /// bank): asked only of a verification that may use one of them.
    pub live_identity_methods: &'a [VerificationMethod],
    /// The stack has a documents bucket: uploads are a method.
    pub documents: bool,
}

/// What the tenant may do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Journey {
    /// Completed: the summary, and the note while none was added.
    Done {
        may_add_note: bool,
    },
    Failed,
    /// Closed by the requester.
    Cancelled,
    Expired,
    /// The consent is the next step; it asks the tenant's identity when the provider needs it.
    Consent {
        asks_identity: bool,
    },
    /// The tenant finished in the provider's window and its data is being collected
    /// (`awaiting`): the page says so and refreshes itself; nothing is to connect meanwhile.
    Waiting(Waiting),
    Open(Open),
}

/// A connection waiting for its provider's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    /// The method being connected, and where a failure leads (recorded when the wait began).
    pub connect: Connect,
    pub since: DateTime<Utc>,
}

/// An open verification after the consent.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    /// The methods not tried yet, in the landlord's order.
    pub open: Vec<VerificationMethod>,
    /// The method to connect now; None when only uploads remain (or nothing, with income held).
    pub connect: Option<Connect>,
    /// The last try, for the line that says why it was left.
    pub last_try: Option<MethodAttempt>,
    /// Income held from methods that succeeded ("add another income source").
    pub held: Option<Held>,
    /// Uploads, when documents are one of the methods.
    pub uploads: Option<Uploads>,
    /// The documents (ids) whose figures only the tenant can type, not typed yet.
    pub typed_figures: Vec<String>,
}

/// The method to connect now and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connect {
    pub method: VerificationMethod,
    pub by: By,
    /// Where "use another way" leads: the next open method.
    pub next: Option<VerificationMethod>,
}

/// How a method is connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The sandbox's scenarios of the method (test mode, or the local stack).
    Scenarios,
    /// The live provider's widget, started by a POST.
    Provider,
}

/// Income held while the tenant adds another source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The methods it came from, in the order they succeeded.
    pub methods: Vec<VerificationMethod>,
    /// Finishing takes the documents too: one of them counts and uploads are a method.
    pub with_documents: bool,
}

/// The uploads step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uploads {
    /// Another upload may be offered.
    pub may_upload: bool,
    /// The sandbox's sample documents are offered.
    pub samples: bool,
    /// Whether the tenant may finish with the documents now, or why not.
    pub finish: Result<(), NotReady>,
}

/// Why the documents cannot finish yet, as the tenant reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotReady(pub &'static str);

/// Whether the tenant picks sandbox scenarios: test mode, or the local stack's live sandbox.
pub fn scenarios(v: &Verification, s: &Served) -> bool {
    v.mode == Mode::Test || s.live_simulated
}

/// The methods the page can serve `v`: the sandbox's where the tenant picks scenarios, else the
/// live provider's, and uploaded documents where the stack has a documents bucket.
fn served(v: &Verification, s: &Served) -> Vec<VerificationMethod> {
    let mode = if scenarios(v, s) {
        Mode::Test
    } else {
        Mode::Live
    };
    methods::available(s.live_methods, mode, s.documents)
}

/// The methods the page routes `v` between: the verification's own (named at create, or the
/// account's default stored at consent), else every method the page can serve, in order.
fn routable(v: &Verification, s: &Served) -> Vec<VerificationMethod> {
    methods::effective(&v.methods, &[], &served(v, s))
}

/// The methods the consent stores on `v`: for a verification created without its own, its
/// account's default set less what the page cannot serve (`methods::from_account_default`);
/// nothing to store otherwise.
pub fn methods_at_consent(
    v: &Verification,
    s: &Served,
    account_default: &[VerificationMethod],
) -> Vec<VerificationMethod> {
    if !v.methods.is_empty() {
        return vec![];
    }
    methods::from_account_default(account_default, &served(v, s))
}

/// Whether another upload may be offered.
pub fn may_upload(v: &Verification) -> bool {
    v.documents.values().filter(|d| d.counts()).count() < MAX_DOCUMENTS && v.uploads < MAX_UPLOADS
}

/// What the tenant may do next with `v` at `now`, on a stack serving `s`.
pub fn next_step(v: &Verification, now: DateTime<Utc>, s: &Served) -> Journey {
    match v.effective_status(now) {
        Status::Completed => {
            return Journey::Done {
                may_add_note: v.tenant_note.is_none(),
            };
        }
        Status::Failed => return Journey::Failed,
        Status::Expired if v.cancelled_at.is_some() => return Journey::Cancelled,
        Status::Expired => return Journey::Expired,
        Status::Pending | Status::InProgress => {}
    }
    let scenarios = scenarios(v, s);
    // A live provider's method needs the tenant's users at the providers, made at consent; a
    // stack without a live provider can not take a live consent at all.
    let needs_user = !scenarios
        && (s.live_methods.is_empty() || routable(v, s).iter().any(|m| s.live_methods.contains(m)));
    if v.consented_at.is_none() || (needs_user && v.provider_user.is_none()) {
        return Journey::Consent {
            asks_identity: !scenarios
                && (routable(v, s).iter()).any(|m| s.live_identity_methods.contains(m)),
        };
    }
    // A wait of the current try comes before any choice: nothing is to connect again while the
    // provider collects the data.
    if let Some(waiting) = v.awaiting_now() {
        return Journey::Waiting(Waiting {
            connect: Connect {
                method: waiting.method,
                by: By::Provider,
                next: waiting.next,
            },
            since: waiting.since,
        });
    }
    let routable = routable(v, s);
    let open = methods::remaining(&routable, &v.method_attempts);
    let connect = open
        .iter()
        .copied()
        .find(|m| *m != VerificationMethod::Document)
        .map(|method| Connect {
            method,
            by: if scenarios {
                By::Scenarios
            } else {
                By::Provider
            },
            next: open.iter().copied().find(|m| *m != method),
        });
    // Uploads need the stack's bucket, whatever a live provider names as its method.
    let documents = s.documents && routable.contains(&VerificationMethod::Document);
    let held = v.held_income.as_ref().map(|_| Held {
        methods: (v.method_attempts.iter())
            .filter(|a| a.outcome == AttemptOutcome::Succeeded)
            .map(|a| a.method)
            .collect(),
        with_documents: documents && v.documents.values().any(|d| d.counts()),
    });
    let uploads = documents.then(|| Uploads {
        may_upload: may_upload(v),
        samples: scenarios,
        finish: ready_to_finish(v.documents.values()).map_err(NotReady),
    });
    let typed_figures = (v.documents.iter())
        .filter(|(_, d)| d.needs_stated_pay() && d.stated.is_none())
        .map(|(id, _)| id.clone())
        .collect();
    Journey::Open(Open {
        open,
        connect,
        last_try: v.method_attempts.last().cloned(),
        held,
        uploads,
        typed_figures,
    })
}
