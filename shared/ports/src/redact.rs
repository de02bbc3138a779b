//! `Debug` for the ports' types that carry a person's data or a secret (the rules are in
//! `domain::redact`): an SMS's number and text, an e-mail's recipient and bodies, a webhook
//! secret, a provider's widget tokens.

use std::fmt::{self, Debug, Formatter};

use domain::redact::{Hidden, Size, presence};

use crate::{ConnectStep, Email, Sms, WebhookSecrets};

impl Debug for Sms {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sms")
            .field("to", &Hidden)
            .field("text", &Size(self.text.len()))
            .finish()
    }
}

impl Debug for WebhookSecrets {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookSecrets")
            .field("current", &presence(&self.current))
            .field("previous", &presence(&self.previous))
            .field("previous_valid_until", &self.previous_valid_until)
            .finish_non_exhaustive()
    }
}

impl Debug for Email {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // The bodies carry the tenant's link, which opens their verification.
        f.debug_struct("Email")
            .field("to", &Hidden)
            .field("subject", &Hidden)
            .field("text", &Size(self.text.len()))
            .field("html", &Size(self.html.len()))
            .finish_non_exhaustive()
    }
}

impl Debug for ConnectStep {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ConnectStep::ChooseScenario { scenarios } => f
                .debug_struct("ChooseScenario")
                .field("scenarios", scenarios)
                .finish(),
            ConnectStep::Widget { .. } => f
                .debug_struct("Widget")
                .field("link_token", &Hidden)
                .finish(),
            ConnectStep::PayrollWidget {
                sandbox, script, ..
            } => f
                .debug_struct("PayrollWidget")
                .field("user_token", &Hidden)
                .field("sandbox", sandbox)
                .field("script", script)
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use domain::Transition;
    use domain::redact::assert_hides;

    use super::*;

    const EMAIL: &str = "jane.private@example.com";
    const NAME: &str = "Jane Privatename";
    const PHONE_E164: &str = "+15550109999";
    const LINK_TOKEN: &str = "link-sandbox-af1a0311";
    const PLAID_USER: &str = "user-sandbox-b0e2c4ee";

    #[test]
    fn sms_hides_the_number_and_the_text() {
        let sms = Sms {
            to: PHONE_E164.into(),
            text: format!("Acme asks you: https://x/t/1/{LINK_TOKEN}"),
        };
        let out = assert_hides(&sms, &[PHONE_E164, "5550109999", LINK_TOKEN, "Acme"]);
        assert!(out.contains("bytes"), "{out}");
    }

    #[test]
    fn webhook_secrets_hide_both_secrets() {
        let secrets = WebhookSecrets {
            current: Some("whsec_currentcurrentcurrent".into()),
            previous: Some("whsec_previouspreviousprev".into()),
            previous_valid_until: None,
        };
        assert_hides(&secrets, &["whsec_", "currentcurrent", "previousprevious"]);
    }

    #[test]
    fn email_hides_recipient_subject_and_link() {
        let email = Email {
            to: EMAIL.into(),
            subject: format!("{NAME}, please verify your income"),
            text: format!("Open https://verify.example.com/t/id/{LINK_TOKEN}"),
            html: format!("<a href=\"https://verify.example.com/t/id/{LINK_TOKEN}\">open</a>"),
        };
        assert_hides(&email, &[EMAIL, NAME, LINK_TOKEN]);
    }

    #[test]
    fn connect_step_hides_the_provider_tokens() {
        let step = ConnectStep::Widget {
            link_token: LINK_TOKEN.into(),
            script: None,
        };
        assert_hides(&step, &[LINK_TOKEN]);
        let consent = Transition::Consent {
            version: "v1".into(),
            provider_user: Some(PLAID_USER.into()),
            methods: vec![],
        };
        assert_hides(&consent, &[PLAID_USER]);
    }
}
