//! The roles of template.yaml as IAM would evaluate them: each function's statements (its SAM
//! `Policies` with the managed policies SAM attaches to the role it makes (`managed.rs`), or the
//! `Policies` of the role it names, plus any `AWS::IAM::RolePolicy` or `AWS::IAM::Policy`
//! attached to that role), with
//! `!Ref`, `!GetAtt` and `!Sub` resolved to the local stack's names, and an evaluator for
//! `Action`/`NotAction` and `Resource`/`NotResource` with wildcards, explicit deny, and the string
//! and ARN condition operators (each with `IfExists`, and their `ForAllValues:`/`ForAnyValue:`
//! forms). An absent key fails a plain operator, passes a negated or `IfExists` one and passes
//! `ForAllValues` (as in IAM: that is why `dynamodb:Select` guards the attribute list).
//!
//! What the reader cannot evaluate is never skipped: a policy form outside those (a SAM policy
//! template, a managed policy by name or ARN, `ManagedPolicyArns`, a permissions boundary, an
//! `AWS::IAM::ManagedPolicy`, an unknown statement element or condition operator, an Allow by
//! `NotAction`) is named in `Read::unreadable`, and the test fails on it. An `AWS::IAM::Policy`
//! is an inline policy of each role in its `Roles`, read as a `RolePolicy` of each.

use std::collections::BTreeMap;

use serde_yaml::Value;

use super::access::{ACCOUNT_ID, Access, LEADING_KEYS, REGION};
use super::managed;

/// One condition of a statement: operator, key, allowed values.
#[derive(Debug, Clone)]
pub struct Condition {
    pub operator: String,
    pub key: String,
    pub values: Vec<String>,
}

/// One statement of a function's role, resolved.
#[derive(Debug, Clone)]
pub struct Statement {
    /// `Sid`, or the statement's place (`Policies[0].Statement[2]`).
    pub label: String,
    pub allow: bool,
    pub actions: Vec<String>,
    /// `NotAction`: every action but these (read for a Deny only; an Allow by it is refused).
    pub not_actions: Vec<String>,
    pub resources: Vec<String>,
    pub not_resources: Vec<String>,
    pub conditions: Vec<Condition>,
}

/// Resolves `!Ref X`, `!GetAtt X.Attr` and `${...}` of `!Sub` to local names.
pub trait Names {
    fn resolve(&self, reference: &str) -> String;
}

/// The roles as read: each function binary's statements, and every policy form the reader could
/// not evaluate, named by function and place.
pub struct Read {
    pub roles: BTreeMap<String, Vec<Statement>>,
    pub unreadable: Vec<String>,
}

/// The function binaries of the template and each one's statements; panics, naming them, on
/// forms the reader cannot evaluate (`read_roles` returns them).
pub fn roles(template: &Value, names: &dyn Names) -> BTreeMap<String, Vec<Statement>> {
    let read = read_roles(template, names);
    assert!(read.unreadable.is_empty(), "{:#?}", read.unreadable);
    read.roles
}

/// The statement elements the evaluator reads.
const ELEMENTS: [&str; 7] = [
    "Sid",
    "Effect",
    "Action",
    "NotAction",
    "Resource",
    "NotResource",
    "Condition",
];

/// The function binaries of the template, each one's statements, and what could not be read.
pub fn read_roles(template: &Value, names: &dyn Names) -> Read {
    let resources = template["Resources"].as_mapping().expect("Resources");
    let mut read = Read {
        roles: BTreeMap::new(),
        unreadable: Vec::new(),
    };
    for (id, resource) in resources {
        let Some(binary) = resource["Metadata"]["BuildProperties"]["Binary"].as_str() else {
            continue;
        };
        let id = id.as_str().unwrap();
        let props = &resource["Properties"];
        let mut statements = Vec::new();
        let mut unreadable = |what: String| read.unreadable.push(format!("{binary}: {what}"));
        if !props["PermissionsBoundary"].is_null() {
            unreadable("the function's PermissionsBoundary is not evaluated".into());
        }
        // SAM makes `<Id>Role` from `Policies`, with its managed policies; a function with
        // `Role` names its own.
        let (role_id, policies) = match &props["Role"] {
            Value::Tagged(t) if t.tag == "!GetAtt" => {
                let role = (t.value.as_str().unwrap().trim_end_matches(".Arn")).to_string();
                let role_props = &resources[&Value::from(role.clone())]["Properties"];
                for element in ["ManagedPolicyArns", "PermissionsBoundary"] {
                    if !role_props[element].is_null() {
                        unreadable(format!("{role}'s {element} is not evaluated"));
                    }
                }
                (role, role_props["Policies"].clone())
            }
            Value::Null => {
                let (sam, not_known) = managed::sam_statements(template, resource, names);
                statements.extend(sam);
                not_known.into_iter().for_each(&mut unreadable);
                (format!("{id}Role"), props["Policies"].clone())
            }
            other => {
                unreadable(format!(
                    "a Role not of this template ({other:?}) is not evaluated"
                ));
                (String::new(), Value::Null)
            }
        };
        for (i, policy) in policies.as_sequence().into_iter().flatten().enumerate() {
            let place = format!("Policies[{i}]");
            let document = match policy {
                Value::String(name) => {
                    unreadable(format!(
                        "{place}: the managed policy {name} is not evaluated"
                    ));
                    continue;
                }
                _ if !policy["PolicyDocument"].is_null() => &policy["PolicyDocument"],
                _ if !policy["Statement"].is_null() => policy,
                _ => {
                    let template = policy.as_mapping().and_then(|m| m.keys().next());
                    unreadable(format!(
                        "{place}: the SAM policy template {template:?} is not evaluated"
                    ));
                    continue;
                }
            };
            statements.extend(document_statements(
                document,
                &place,
                names,
                &mut unreadable,
            ));
        }
        for (other_id, other) in resources {
            let names_role = |v: &Value| matches!(v, Value::Tagged(t) if t.value.as_str() == Some(role_id.as_str()));
            let place = other_id.as_str().unwrap().to_string();
            // An `AWS::IAM::Policy` is an inline policy embedded in each role it lists: to each,
            // the same statements as a RolePolicy of its own.
            let attached = match other["Type"].as_str() {
                Some("AWS::IAM::RolePolicy") => names_role(&other["Properties"]["RoleName"]),
                Some("AWS::IAM::Policy") => roles_named(other).any(names_role),
                _ => false,
            };
            if attached {
                let document = &other["Properties"]["PolicyDocument"];
                statements.extend(document_statements(
                    document,
                    &place,
                    names,
                    &mut unreadable,
                ));
                continue;
            }
            if other["Type"] == "AWS::IAM::ManagedPolicy" && roles_named(other).any(names_role) {
                unreadable(format!(
                    "{place} (AWS::IAM::ManagedPolicy) is not evaluated"
                ));
            }
        }
        read.roles.insert(binary.to_string(), statements);
    }
    read
}

/// The roles an `AWS::IAM::Policy` or `AWS::IAM::ManagedPolicy` is attached to (`Roles`).
fn roles_named(policy: &Value) -> impl Iterator<Item = &Value> {
    policy["Properties"]["Roles"]
        .as_sequence()
        .into_iter()
        .flatten()
}

fn document_statements(
    document: &Value,
    place: &str,
    names: &dyn Names,
    unreadable: &mut dyn FnMut(String),
) -> Vec<Statement> {
    if let Some(version) = document["Version"].as_str()
        && version != "2012-10-17"
    {
        unreadable(format!(
            "{place}: policy language version {version} is not evaluated"
        ));
    }
    let list = match &document["Statement"] {
        Value::Sequence(list) => list.clone(),
        one @ Value::Mapping(_) => vec![one.clone()],
        _ => vec![],
    };
    let mut out = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let label = match s["Sid"].as_str() {
            Some(sid) => format!("{place} {sid}"),
            None => format!("{place}.Statement[{i}]"),
        };
        for (element, _) in s.as_mapping().into_iter().flatten() {
            let element = element.as_str().unwrap_or_default();
            if !ELEMENTS.contains(&element) {
                unreadable(format!("{label}: the element {element} is not evaluated"));
            }
        }
        let allow = match s["Effect"].as_str() {
            Some("Allow") => true,
            Some("Deny") => false,
            other => {
                unreadable(format!(
                    "{label}: Effect {other:?} is neither Allow nor Deny"
                ));
                continue;
            }
        };
        let statement = Statement {
            label,
            allow,
            actions: strings(&s["Action"], names),
            not_actions: strings(&s["NotAction"], names),
            resources: strings(&s["Resource"], names),
            not_resources: strings(&s["NotResource"], names),
            conditions: conditions(&s["Condition"], names),
        };
        let label = &statement.label;
        if statement.actions.is_empty() == statement.not_actions.is_empty() {
            unreadable(format!(
                "{label}: needs exactly one of Action and NotAction"
            ));
        }
        if statement.resources.is_empty() == statement.not_resources.is_empty() {
            unreadable(format!(
                "{label}: needs exactly one of Resource and NotResource"
            ));
        }
        if allow && !statement.not_actions.is_empty() {
            unreadable(format!(
                "{label}: an Allow by NotAction grants every other action, those AWS adds later \
                 too, so no call can show it is needed; name the actions"
            ));
        }
        for c in &statement.conditions {
            if !operator_known(&c.operator) {
                unreadable(format!(
                    "{label}: the condition operator {} is not evaluated",
                    c.operator
                ));
            }
        }
        out.push(statement);
    }
    out
}

fn conditions(block: &Value, names: &dyn Names) -> Vec<Condition> {
    let mut out = Vec::new();
    for (operator, keys) in block.as_mapping().into_iter().flatten() {
        for (key, values) in keys.as_mapping().into_iter().flatten() {
            out.push(Condition {
                operator: operator.as_str().unwrap().to_string(),
                key: key.as_str().unwrap().to_string(),
                values: strings(values, names),
            });
        }
    }
    out
}

/// The operators the evaluator implements: the string and ARN ones, each plain or `IfExists`,
/// each alone or under `ForAllValues:`/`ForAnyValue:`.
const OPERATORS: [&str; 8] = [
    "StringEquals",
    "StringNotEquals",
    "StringLike",
    "StringNotLike",
    "ArnEquals",
    "ArnNotEquals",
    "ArnLike",
    "ArnNotLike",
];

fn operator_known(operator: &str) -> bool {
    let base = operator
        .strip_prefix("ForAllValues:")
        .or_else(|| operator.strip_prefix("ForAnyValue:"))
        .unwrap_or(operator);
    OPERATORS.contains(&base.trim_end_matches("IfExists"))
}

/// A value (a string, a tag, or a list of them) as resolved strings.
fn strings(v: &Value, names: &dyn Names) -> Vec<String> {
    match v {
        Value::Null => vec![],
        Value::Sequence(list) => list.iter().flat_map(|v| strings(v, names)).collect(),
        other => vec![resolve(other, names)],
    }
}

/// One value resolved: a plain string, `!Ref X`, `!GetAtt X.Attr` or `!Sub "...${X}..."`.
pub fn resolve(v: &Value, names: &dyn Names) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Tagged(t) if t.tag == "!Ref" || t.tag == "!GetAtt" => names.resolve(
            t.value
                .as_str()
                .expect("a !Ref or !GetAtt names its target"),
        ),
        Value::Tagged(t) if t.tag == "!Sub" => {
            let mut text = t.value.as_str().expect("a !Sub of one string").to_string();
            while let Some(start) = text.find("${") {
                let end = start + text[start..].find('}').expect("a closed ${...}");
                let value = names.resolve(&text[start + 2..end]);
                text.replace_range(start..=end, &value);
            }
            text
        }
        other => panic!("template.yaml: cannot resolve {other:?} in a policy"),
    }
}

/// The pseudo parameters, as the local stack has them.
pub fn pseudo(reference: &str) -> Option<String> {
    match reference {
        "AWS::Partition" => Some("aws".into()),
        "AWS::Region" => Some(REGION.into()),
        "AWS::AccountId" => Some(ACCOUNT_ID.into()),
        _ => None,
    }
}

/// IAM's wildcard match: `*` any run, `?` one character.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A negated operator (`StringNotEquals`, `ArnNotLike`...): it holds where its positive form
/// does not, and on an absent key.
fn negated(operator: &str) -> bool {
    operator.contains("Not")
}

/// One value against the listed ones: any of them (OR) for a positive operator, none of them
/// (NOR) for a negated one.
fn value_matches(operator: &str, allowed: &[String], value: &str) -> bool {
    let base = operator.trim_end_matches("IfExists").replace("Not", "");
    let any = allowed.iter().any(|a| match base.as_str() {
        "StringEquals" | "ArnEquals" => a == value,
        "StringLike" | "ArnLike" => glob(a, value),
        other => panic!("condition operator {other} is not evaluated here: add it"),
    });
    any != negated(operator)
}

impl Condition {
    pub fn holds(&self, context: &BTreeMap<String, Vec<String>>) -> bool {
        // Condition keys are case-insensitive (their values are not).
        let values = (context.iter())
            .find(|(k, _)| k.eq_ignore_ascii_case(&self.key))
            .map(|(_, v)| v);
        if let Some(op) = self.operator.strip_prefix("ForAllValues:") {
            return values.is_none_or(|vs| vs.iter().all(|v| value_matches(op, &self.values, v)));
        }
        if let Some(op) = self.operator.strip_prefix("ForAnyValue:") {
            return values.is_some_and(|vs| vs.iter().any(|v| value_matches(op, &self.values, v)));
        }
        match values {
            None => self.operator.ends_with("IfExists") || negated(&self.operator),
            Some(vs) => vs
                .iter()
                .all(|v| value_matches(&self.operator, &self.values, v)),
        }
    }
}

impl Statement {
    /// Whether this statement covers the access (action, resource and every condition).
    pub fn matches(&self, access: &Access) -> bool {
        // Action names are case-insensitive; resources are not.
        let named = |a: &String| glob(&a.to_ascii_lowercase(), &access.action.to_ascii_lowercase());
        let action = if self.not_actions.is_empty() {
            self.actions.iter().any(named)
        } else {
            !self.not_actions.iter().any(named)
        };
        let resource = if self.not_resources.is_empty() {
            self.resources.iter().any(|r| glob(r, &access.resource))
        } else {
            !self.not_resources.iter().any(|r| glob(r, &access.resource))
        };
        action && resource && self.conditions.iter().all(|c| c.holds(&access.context))
    }

    /// The statement's `dynamodb:LeadingKeys` patterns (none: any key).
    pub fn leading_key_patterns(&self) -> Vec<String> {
        (self.conditions.iter())
            .filter(|c| c.key == LEADING_KEYS)
            .flat_map(|c| c.values.clone())
            .collect()
    }
}

/// Allowed: some Allow statement matches and no Deny does.
pub fn allows(statements: &[Statement], access: &Access) -> bool {
    let denied = statements.iter().any(|s| !s.allow && s.matches(access));
    !denied && statements.iter().any(|s| s.allow && s.matches(access))
}

/// One piece of a statement a call can use: an action on a resource, and for table grants one
/// `dynamodb:LeadingKeys` pattern (`ACCOUNT#*`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Grant {
    pub statement: String,
    pub action: String,
    pub resource: String,
    pub leading_key: Option<String>,
}

impl std::fmt::Display for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} on {}",
            self.statement, self.action, self.resource
        )?;
        if let Some(k) = &self.leading_key {
            write!(f, " with LeadingKeys {k}")?;
        }
        Ok(())
    }
}

/// Every grant of the statements (allow statements only).
pub fn grants(statements: &[Statement]) -> Vec<Grant> {
    let mut out = Vec::new();
    for s in statements.iter().filter(|s| s.allow) {
        let resources = if s.not_resources.is_empty() {
            s.resources.clone()
        } else {
            vec![format!("NotResource {:?}", s.not_resources)]
        };
        let patterns = s.leading_key_patterns();
        for action in &s.actions {
            for resource in &resources {
                let keys: Vec<Option<String>> = if patterns.is_empty() {
                    vec![None]
                } else {
                    patterns.iter().cloned().map(Some).collect()
                };
                for leading_key in keys {
                    out.push(Grant {
                        statement: s.label.clone(),
                        action: action.clone(),
                        resource: resource.clone(),
                        leading_key,
                    });
                }
            }
        }
    }
    out
}

/// The grants an allowed access used: of each matching statement, its action and resource, and
/// every LeadingKeys pattern one of the access's keys matches.
pub fn used_by(statements: &[Statement], access: &Access) -> Vec<Grant> {
    let keys = access
        .context
        .get(LEADING_KEYS)
        .cloned()
        .unwrap_or_default();
    grants(statements)
        .into_iter()
        .filter(|g| {
            let statement = statements.iter().find(|s| s.label == g.statement).unwrap();
            statement.matches(access)
                && glob(
                    &g.action.to_ascii_lowercase(),
                    &access.action.to_ascii_lowercase(),
                )
                && (g.resource.starts_with("NotResource") || glob(&g.resource, &access.resource))
                && g.leading_key
                    .as_ref()
                    .is_none_or(|p| keys.iter().any(|k| glob(p, k)))
        })
        .collect()
}
