//! A function's variables, read from template.yaml (the Globals' and its own), with the local
//! stack's value for each resource they name. The template is the one list: a variable added
//! there reaches the bench, and one the bench cannot give a value fails its test, not the run.

use serde_yaml::Value;

use super::{Error, err};

use devstack::pump::{template, template_function as resource};

/// What the local stack names where template.yaml names a resource.
pub(crate) struct Local<'a> {
    pub(crate) table: &'a str,
    pub(crate) queues: &'a devstack::stack::Created,
}

/// The template's conditions as the bench's stack meets them: a public URL, no provider
/// (`IncomeProviders` keeps its default, `none`), no plans parameter, no edge.
fn condition(name: &str) -> Option<bool> {
    match name {
        "HasPublicBaseUrl" => Some(true),
        "UsesPlaid" | "UsesArgyle" | "HasPlans" => Some(false),
        // The default deploy, without the edge: no origin secret is read at cold start.
        "EdgeProtected" => Some(false),
        _ => None,
    }
}

impl Local<'_> {
    /// The local value of a variable that names a resource of the stack.
    fn resource(&self, variable: &str) -> Option<String> {
        let prefix = self.table.trim_end_matches("-table");
        Some(match variable {
            "TABLE_NAME" => self.table.to_string(),
            "PUBLIC_BASE_URL" => "http://127.0.0.1:3000".to_string(),
            "SENDER_EMAIL" => "no-reply@verify.local.test".to_string(),
            "WEBHOOK_QUEUE_URL" => self.queues.webhook_queue_url.clone(),
            "RETRY_QUEUE_URL" => self.queues.retry_queue_url.clone(),
            "DOCUMENT_BUCKET" => devstack::stack::documents_bucket_for(self.table),
            "FINGERPRINT_KEY_SECRET_ARN" => self.queues.fingerprint_key_secret_arn.clone(),
            // The prefix `stack::bootstrap` names beside the table (`Resources::named`).
            "WEBHOOK_SECRETS_PREFIX" => format!("{prefix}/webhook-secrets/"),
            // The group and role `stack::bootstrap` names beside the table (`Resources::named`).
            "REMINDER_SCHEDULE_GROUP" => format!("{prefix}-reminders"),
            "REMINDER_FUNCTION_ARN" => devstack::LOCAL_REMINDER_FUNCTION_ARN.to_string(),
            "REMINDER_SCHEDULER_ROLE_ARN" => {
                format!("arn:aws:iam::123456789012:role/{prefix}-reminder-scheduler")
            }
            // The sample events are test-mode fixtures: suppressed, send-reminders and
            // publish-events would measure a no-op. moto keeps the e-mails and texts; nothing
            // leaves loopback.
            "TEST_MODE_DELIVERY" => "send".to_string(),
            _ => return None,
        })
    }

    /// One variable's value: a literal as written, a parameter's default, a resource's local
    /// name; `None` when a condition leaves it unset.
    fn value(&self, variable: &str, written: &Value) -> Result<Option<String>, Error> {
        if let Some(local) = self.resource(variable) {
            return Ok(Some(local));
        }
        match written {
            Value::String(s) => Ok(Some(s.clone())),
            Value::Number(n) => Ok(Some(n.to_string())),
            Value::Tagged(tagged) if tagged.tag == "If" => {
                let branches = tagged.value.as_sequence().map(Vec::as_slice);
                let Some([Value::String(name), then, otherwise]) = branches else {
                    return Err(err(format!("{variable}: an !If the bench cannot read")));
                };
                let holds = condition(name).ok_or_else(|| {
                    err(format!("{variable}: condition {name} has no local value"))
                })?;
                match if holds { then } else { otherwise } {
                    Value::Tagged(t)
                        if t.tag == "Ref" && t.value.as_str() == Some("AWS::NoValue") =>
                    {
                        Ok(None)
                    }
                    chosen => self.value(variable, chosen),
                }
            }
            Value::Tagged(tagged) if tagged.tag == "Ref" => {
                let name = tagged.value.as_str().unwrap_or_default();
                let default = &template()["Parameters"][name]["Default"];
                match default {
                    Value::String(s) => Ok(Some(s.clone())),
                    Value::Number(n) => Ok(Some(n.to_string())),
                    _ => Err(err(format!(
                        "{variable}: names {name}, which has no local value in the bench"
                    ))),
                }
            }
            _ => Err(err(format!(
                "{variable}: the bench has no local value (environment.rs)"
            ))),
        }
    }
}

/// The function's resource in template.yaml (by its binary's name).
/// The variables template.yaml gives `function` (the Globals', then its own), with their local
/// values. A name the template doesn't know (the Python peer) gets the Globals alone.
pub(crate) fn variables(function: &str, local: &Local) -> Result<Vec<(String, String)>, Error> {
    let globals = &template()["Globals"]["Function"]["Environment"]["Variables"];
    let own = resource(function)
        .map(|r| &r["Properties"]["Environment"]["Variables"])
        .unwrap_or(&Value::Null);
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, written) in [globals, own]
        .into_iter()
        .filter_map(Value::as_mapping)
        .flatten()
    {
        let name = name
            .as_str()
            .ok_or_else(|| err("a variable name that is not a string"))?;
        out.retain(|(n, _)| n != name);
        if let Some(value) = local.value(name, written)? {
            out.push((name.to_string(), value));
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Queue and secret names for the tests that need a `Created` without a stack.
    pub(crate) fn created() -> devstack::stack::Created {
        devstack::stack::Created {
            webhook_queue_url: "q".into(),
            webhook_dlq_url: "d".into(),
            retry_queue_url: "r".into(),
            retry_dlq_url: "rd".into(),
            documents_queue_url: "dq".into(),
            documents_dlq_url: "dd".into(),
            fingerprint_key_secret_arn: "fk".into(),
            fingerprint_key: domain::documents::reuse::FingerprintKey::new(vec![7; 32]).unwrap(),
            webhook_secrets_key_arn: "wk".into(),
        }
    }

    /// Every function of the route table is in template.yaml and the bench has a value for
    /// each variable the template gives it: a new one fails here, not after an hour of bench.
    #[test]
    fn the_bench_knows_every_function_and_its_variables() {
        let queues = created();
        let local = Local {
            table: "b-table",
            queues: &queues,
        };
        for function in service::routes::Function::ALL {
            let name = function.name();
            assert!(resource(name).is_some(), "{name} is not in template.yaml");
            let env = variables(name, &local).unwrap_or_else(|e| panic!("{name}: {e}"));
            let own = &resource(name).unwrap()["Properties"]["Environment"]["Variables"];
            for (variable, _) in own.as_mapping().into_iter().flatten() {
                let variable = variable.as_str().unwrap();
                let conditional = matches!(&own[variable], Value::Tagged(t) if t.tag == "If");
                assert!(
                    conditional || env.iter().any(|(n, _)| n == variable),
                    "{name}: {variable} missing"
                );
            }
            assert!(env.iter().any(|(n, v)| n == "TABLE_NAME" && v == "b-table"));
        }
    }

    /// The document functions read their bucket: list-documents stopped the bench without it.
    #[test]
    fn list_documents_gets_its_bucket() {
        let queues = created();
        let local = Local {
            table: "b-table",
            queues: &queues,
        };
        let env = variables("list-documents", &local).unwrap();
        let bucket = env.iter().find(|(n, _)| n == "DOCUMENT_BUCKET");
        assert_eq!(bucket.map(|(_, v)| v.as_str()), Some("b-documents"));
    }
}
