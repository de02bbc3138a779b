//! The roles of template.yaml as IAM would evaluate them: each function's statements (its SAM
//! `Policies`, or the `Policies` of the role it names, plus any `AWS::IAM::RolePolicy` attached to
//! that role), with `!Ref`, `!GetAtt` and `!Sub` resolved to the local stack's names, and an
//! evaluator for the parts of IAM the template uses: `Action`, `Resource`/`NotResource` with
//! wildcards, and the condition operators `StringEquals`, `StringLike`, `ArnLike` (each with
//! `IfExists`) and their `ForAllValues:`/`ForAnyValue:` forms (`dynamodb:LeadingKeys`,
//! `dynamodb:Attributes`). An absent key fails a plain operator, passes an `IfExists` one and
//! passes `ForAllValues` (as in IAM: that is why `dynamodb:Select` guards the attribute list).

use std::collections::BTreeMap;

use serde_yaml::Value;

use super::access::{ACCOUNT_ID, Access, LEADING_KEYS, REGION};

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
    pub resources: Vec<String>,
    pub not_resources: Vec<String>,
    pub conditions: Vec<Condition>,
}

/// Resolves `!Ref X`, `!GetAtt X.Attr` and `${...}` of `!Sub` to local names.
pub trait Names {
    fn resolve(&self, reference: &str) -> String;
}

/// The function binaries of the template and each one's statements.
pub fn roles(template: &Value, names: &dyn Names) -> BTreeMap<String, Vec<Statement>> {
    let resources = template["Resources"].as_mapping().expect("Resources");
    let mut out = BTreeMap::new();
    for (id, resource) in resources {
        let Some(binary) = resource["Metadata"]["BuildProperties"]["Binary"].as_str() else {
            continue;
        };
        let id = id.as_str().unwrap();
        let props = &resource["Properties"];
        // SAM makes `<Id>Role` from `Policies`; a function with `Role` names its own.
        let (role_id, policies) = match &props["Role"] {
            Value::Tagged(t) => {
                let role = t
                    .value
                    .as_str()
                    .unwrap()
                    .trim_end_matches(".Arn")
                    .to_string();
                let policies =
                    resources[&Value::from(role.clone())]["Properties"]["Policies"].clone();
                (role, policies)
            }
            _ => (format!("{id}Role"), props["Policies"].clone()),
        };
        let mut statements = Vec::new();
        for (i, policy) in policies.as_sequence().into_iter().flatten().enumerate() {
            let document = match &policy["PolicyDocument"] {
                Value::Null => policy,
                document => document,
            };
            let place = format!("Policies[{i}]");
            statements.extend(document_statements(document, &place, names));
        }
        for (other_id, other) in resources {
            let attached = other["Type"].as_str() == Some("AWS::IAM::RolePolicy")
                && matches!(&other["Properties"]["RoleName"], Value::Tagged(t) if t.value.as_str() == Some(role_id.as_str()));
            if attached {
                let place = other_id.as_str().unwrap().to_string();
                let document = &other["Properties"]["PolicyDocument"];
                statements.extend(document_statements(document, &place, names));
            }
        }
        out.insert(binary.to_string(), statements);
    }
    out
}

fn document_statements(document: &Value, place: &str, names: &dyn Names) -> Vec<Statement> {
    let list = document["Statement"]
        .as_sequence()
        .cloned()
        .unwrap_or_default();
    list.iter()
        .enumerate()
        .map(|(i, s)| Statement {
            label: match s["Sid"].as_str() {
                Some(sid) => format!("{place} {sid}"),
                None => format!("{place}.Statement[{i}]"),
            },
            allow: s["Effect"].as_str() == Some("Allow"),
            actions: strings(&s["Action"], names),
            resources: strings(&s["Resource"], names),
            not_resources: strings(&s["NotResource"], names),
            conditions: conditions(&s["Condition"], names),
        })
        .collect()
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

fn value_matches(operator: &str, allowed: &[String], value: &str) -> bool {
    let base = operator.trim_end_matches("IfExists");
    allowed.iter().any(|a| match base {
        "StringEquals" | "ArnEquals" => a == value,
        "StringLike" | "ArnLike" => glob(a, value),
        "StringNotEquals" => a != value,
        other => panic!("condition operator {other} is not evaluated here: add it"),
    })
}

impl Condition {
    pub fn holds(&self, context: &BTreeMap<String, Vec<String>>) -> bool {
        let values = context.get(&self.key);
        if let Some(op) = self.operator.strip_prefix("ForAllValues:") {
            return values.is_none_or(|vs| vs.iter().all(|v| value_matches(op, &self.values, v)));
        }
        if let Some(op) = self.operator.strip_prefix("ForAnyValue:") {
            return values.is_some_and(|vs| vs.iter().any(|v| value_matches(op, &self.values, v)));
        }
        match values {
            None => self.operator.ends_with("IfExists"),
            Some(vs) => vs
                .iter()
                .all(|v| value_matches(&self.operator, &self.values, v)),
        }
    }
}

impl Statement {
    /// Whether this statement covers the access (action, resource and every condition).
    pub fn matches(&self, access: &Access) -> bool {
        let action = self.actions.iter().any(|a| glob(a, &access.action));
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
                && glob(&g.action, &access.action)
                && (g.resource.starts_with("NotResource") || glob(&g.resource, &access.resource))
                && g.leading_key
                    .as_ref()
                    .is_none_or(|p| keys.iter().any(|k| glob(p, k)))
        })
        .collect()
}
