//! What IAM sees of a recorded AWS call: each call becomes one or more accesses, each an action on
//! a resource with its request context (the condition keys the template's policies use). A
//! DynamoDB transaction is one access per part (IAM authorizes each part's own action: Put,
//! Update, Delete, ConditionCheck), a batch one per table.

use std::collections::BTreeMap;

use devstack::proxy::Call;
use serde_json::Value;

pub const ACCOUNT_ID: &str = "123456789012";
pub const REGION: &str = devstack::moto::REGION;

/// One authorization IAM makes for a call.
#[derive(Debug, Clone)]
pub struct Access {
    /// `service:Action`, e.g. `dynamodb:UpdateItem`.
    pub action: String,
    pub resource: String,
    /// Condition keys and their values in the request (`dynamodb:LeadingKeys`, ...). A key the
    /// request does not set is absent.
    pub context: BTreeMap<String, Vec<String>>,
    /// The call it came from, for the failure message (`TransactWriteItems part 2`).
    pub call: String,
}

impl Access {
    fn new(action: &str, resource: String, call: String) -> Self {
        Access {
            action: action.to_string(),
            resource,
            context: BTreeMap::new(),
            call,
        }
    }

    fn with(mut self, key: &str, values: Vec<String>) -> Self {
        self.context.insert(key.to_string(), values);
        self
    }

    /// The partition-key prefixes touched (`ACCOUNT#`), as a grant would name them.
    pub fn leading_prefixes(&self) -> Vec<String> {
        let mut out: Vec<String> = (self.context.get(LEADING_KEYS).into_iter().flatten())
            .map(|k| key_prefix(k))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// One line: action, resource, and the context (key prefixes, not the ids; the attributes
    /// of reads only, where a projection names them).
    pub fn describe(&self) -> String {
        let mut context = Vec::new();
        for (key, values) in &self.context {
            if key == ATTRIBUTES && !self.context.contains_key(SELECT) {
                continue;
            }
            let shown: Vec<String> = if key == LEADING_KEYS {
                self.leading_prefixes()
                    .iter()
                    .map(|p| format!("{p}*"))
                    .collect()
            } else {
                values.clone()
            };
            context.push(format!("{key}={shown:?}"));
        }
        format!(
            "{} on {} [{}] ({})",
            self.action,
            self.resource,
            context.join(", "),
            self.call
        )
    }
}

pub const LEADING_KEYS: &str = "dynamodb:LeadingKeys";
pub const ATTRIBUTES: &str = "dynamodb:Attributes";
pub const SELECT: &str = "dynamodb:Select";
pub const RETURN_VALUES: &str = "dynamodb:ReturnValues";

/// `ACCOUNT#acct_demo#x` -> `ACCOUNT#`: the typed prefix of a key (the whole key if it has none).
pub fn key_prefix(key: &str) -> String {
    match key.find('#') {
        Some(i) => key[..=i].to_string(),
        None => key.to_string(),
    }
}

fn arn(service: &str, rest: &str) -> String {
    format!("arn:aws:{service}:{REGION}:{ACCOUNT_ID}:{rest}")
}

pub fn table_arn(table: &str) -> String {
    arn("dynamodb", &format!("table/{table}"))
}

pub fn queue_arn(name: &str) -> String {
    arn("sqs", name)
}

/// The accesses of one recorded call.
pub fn accesses(call: &Call) -> Vec<Access> {
    let body: Value = serde_json::from_slice(&call.body).unwrap_or(Value::Null);
    let op = call.short().to_string();
    if call.is_dynamodb() {
        return dynamodb(&op, &body);
    }
    match call.service.as_str() {
        "sqs" => {
            let queue = body["QueueUrl"].as_str().unwrap_or_default();
            let name = queue.rsplit('/').next().unwrap_or_default();
            let action = op.trim_end_matches("Batch");
            vec![Access::new(
                &format!("sqs:{action}"),
                queue_arn(name),
                op.clone(),
            )]
        }
        "ses" if call.operation == "POST /v2/email/outbound-emails" => {
            let from = body["FromEmailAddress"].as_str().unwrap_or_default();
            let identity = from.to_string();
            vec![
                Access::new(
                    "ses:SendEmail",
                    arn("ses", &format!("identity/{identity}")),
                    "SendEmail".into(),
                )
                .with("ses:FromAddress", vec![from.to_string()]),
            ]
        }
        "sns" => {
            let form: BTreeMap<String, String> = form_pairs(&call.body);
            let action = form.get("Action").cloned().unwrap_or_default();
            // A publish to a phone number has no resource ARN; to a topic or endpoint, its ARN.
            let resource = (form.get("TopicArn").or(form.get("TargetArn")))
                .cloned()
                .unwrap_or_else(|| "*".into());
            vec![Access::new(&format!("sns:{action}"), resource, action)]
        }
        "scheduler" if call.operation.starts_with("POST /schedules/") => {
            let name = call.operation.trim_start_matches("POST /schedules/");
            let group = body["GroupName"].as_str().unwrap_or("default");
            let role = body["Target"]["RoleArn"].as_str().unwrap_or_default();
            vec![
                Access::new(
                    "scheduler:CreateSchedule",
                    arn("scheduler", &format!("schedule/{group}/{name}")),
                    "CreateSchedule".into(),
                ),
                Access::new(
                    "iam:PassRole",
                    role.to_string(),
                    "CreateSchedule's Target.RoleArn".into(),
                )
                .with(
                    "iam:PassedToService",
                    vec!["scheduler.amazonaws.com".into()],
                ),
            ]
        }
        // The SDK's S3 calls, path-style through the proxy: `GET /<bucket>/<key>`; on the bucket
        // itself, a listing (`GET /<bucket>?list-type=2&prefix=...`) or a multi-object delete.
        "s3" if s3_bucket_call(call) => s3_bucket(call),
        // One version named (`?versionId=`): the `...Version` action.
        "s3" => {
            let path = call.path_and_query.split('?').next().unwrap_or_default();
            let versioned = names_version(&call.path_and_query);
            let action = match (
                call.operation.split(' ').next().unwrap_or_default(),
                versioned,
            ) {
                ("GET" | "HEAD", false) => "GetObject",
                ("GET" | "HEAD", true) => "GetObjectVersion",
                ("PUT", _) => "PutObject",
                ("DELETE", false) => "DeleteObject",
                ("DELETE", true) => "DeleteObjectVersion",
                (other, _) => other,
            };
            vec![Access::new(
                &format!("s3:{action}"),
                format!("arn:aws:s3:::{}", path.trim_start_matches('/')),
                call.operation.clone(),
            )]
        }
        // A browser's upload: a form POST to the bucket with a policy signed by the function
        // (no Authorization header). S3 authorizes it as s3:PutObject of the signer, on the key.
        "?" if call.operation.starts_with("POST /")
            && form_field(&call.body, "policy").is_some() =>
        {
            let bucket = call.operation.trim_start_matches("POST /");
            let key = form_field(&call.body, "key").unwrap_or_default();
            vec![Access::new(
                "s3:PutObject",
                format!("arn:aws:s3:::{bucket}/{key}"),
                "upload form POST (signed policy)".into(),
            )]
        }
        // A download link: a GET presigned by the function (the credential in the query). S3
        // authorizes it as s3:GetObject of the signer, on the key (s3:GetObjectVersion when the
        // link names a version).
        "?" if call.operation.starts_with("GET /")
            && call.path_and_query.contains("X-Amz-Credential=") =>
        {
            let path = call.path_and_query.split('?').next().unwrap_or_default();
            let action = match names_version(&call.path_and_query) {
                true => "s3:GetObjectVersion",
                false => "s3:GetObject",
            };
            vec![Access::new(
                action,
                format!("arn:aws:s3:::{}", path.trim_start_matches('/')),
                "download link GET (presigned)".into(),
            )]
        }
        "secretsmanager" => {
            let id = body["SecretId"].as_str().unwrap_or_default();
            // A secret named by its name: IAM sees its ARN, the name and the six random
            // characters Secrets Manager appends.
            let resource = match id.starts_with("arn:") {
                true => id.to_string(),
                false => arn("secretsmanager", &format!("secret:{id}-AbCdEf")),
            };
            vec![Access::new(
                &format!("secretsmanager:{op}"),
                resource,
                op.clone(),
            )]
        }
        other => vec![Access::new(
            &format!("{other}:{}", op.rsplit(' ').next().unwrap_or(&op)),
            "*".into(),
            call.operation.clone(),
        )],
    }
}

/// An S3 call on the bucket rather than one key: the path names the bucket only (`/<bucket>/`,
/// as the SDK sends it path-style, or `/<bucket>`).
fn s3_bucket_call(call: &Call) -> bool {
    let path = call.path_and_query.split('?').next().unwrap_or_default();
    !path.trim_matches('/').contains('/')
}

/// Whether a request's query names one object version (`versionId=`).
fn names_version(path_and_query: &str) -> bool {
    let query = path_and_query.split_once('?').map(|(_, q)| q).unwrap_or("");
    service::http::parse_query(query).contains_key("versionId")
}

/// ListObjectsV2 is `s3:ListBucket` on the bucket, ListObjectVersions (`GET /<bucket>?versions`)
/// `s3:ListBucketVersions`, each with the listing's prefix as `s3:prefix` (absent when the
/// request names none). DeleteObjects (`POST /<bucket>?delete`) is authorized per entry of its
/// XML body: `s3:DeleteObjectVersion` on the key of an entry naming a version, else
/// `s3:DeleteObject`.
fn s3_bucket(call: &Call) -> Vec<Access> {
    let (path, query) = (call.path_and_query.split_once('?')).unwrap_or((&call.path_and_query, ""));
    let bucket = format!("arn:aws:s3:::{}", path.trim_matches('/'));
    let query: BTreeMap<String, String> = service::http::parse_query(query).into_iter().collect();
    let method = call.operation.split(' ').next().unwrap_or_default();
    if method == "POST" && query.contains_key("delete") {
        let body = String::from_utf8_lossy(&call.body);
        return (body.split("<Object>").skip(1))
            .filter_map(|entry| {
                let (_, rest) = entry.split_once("<Key>")?;
                let (key, _) = rest.split_once("</Key>")?;
                let action = match entry.contains("<VersionId>") {
                    true => "s3:DeleteObjectVersion",
                    false => "s3:DeleteObject",
                };
                Some((action, crate::documents::upload::unescape(key)))
            })
            .map(|(action, key)| {
                Access::new(action, format!("{bucket}/{key}"), "DeleteObjects".into())
            })
            .collect();
    }
    let listing = match (method, query.get("list-type").map(String::as_str)) {
        ("GET", Some("2")) => Some(("s3:ListBucket", "ListObjectsV2")),
        ("GET", _) if query.contains_key("versions") => {
            Some(("s3:ListBucketVersions", "ListObjectVersions"))
        }
        _ => None,
    };
    if let Some((action, operation)) = listing {
        let access = Access::new(action, bucket, operation.into());
        return match query.get("prefix") {
            Some(prefix) => vec![access.with("s3:prefix", vec![prefix.clone()])],
            None => vec![access],
        };
    }
    vec![Access::new(
        &format!("s3:{}", call.operation),
        bucket,
        call.operation.clone(),
    )]
}

/// A text field of a multipart/form-data body.
fn form_field(body: &[u8], name: &str) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let marker = format!("name=\"{name}\"\r\n\r\n");
    let start = text.find(&marker)? + marker.len();
    let end = text[start..].find("\r\n")?;
    Some(text[start..start + end].to_string())
}

fn form_pairs(body: &[u8]) -> BTreeMap<String, String> {
    service::http::parse_query(&String::from_utf8_lossy(body))
        .into_iter()
        .collect()
}

/// The partition key's attribute of the table or an index (`PK`, `GSI1PK`, ...).
fn partition_attribute(index: Option<&str>) -> String {
    match index {
        Some(index) => format!("{index}PK"),
        None => "PK".into(),
    }
}

/// Attribute names a projection (or any expression) names: `#a` resolved, bare names kept. A
/// document path (`#a.#b`, `a[0]`) names its top-level attribute only, as IAM's
/// `dynamodb:Attributes` does.
fn names_in(expression: &str, names: &Value) -> Vec<String> {
    let mut out: Vec<String> = expression
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '#' | '_' | ':' | '.')))
        .filter_map(|t| t.split('.').next())
        .filter(|t| !t.is_empty())
        .map(|t| match t.strip_prefix('#') {
            Some(_) => names[t].as_str().unwrap_or(t).to_string(),
            None => t.to_string(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn s_of(value: &Value) -> Option<String> {
    value["S"].as_str().map(String::from)
}

/// The partition-key values a Query's key condition fixes (`PK = :v`, or `#pk = :v`).
fn query_leading_keys(body: &Value, partition: &str) -> Vec<String> {
    let condition = body["KeyConditionExpression"].as_str().unwrap_or_default();
    let names = &body["ExpressionAttributeNames"];
    let mut out = Vec::new();
    for clause in condition.split(" AND ").chain(condition.split(" and ")) {
        let Some((left, right)) = clause.split_once('=') else {
            continue;
        };
        let left = left.trim().trim_start_matches('(');
        let name = match left.strip_prefix('#') {
            Some(_) => names[left].as_str().unwrap_or(left),
            None => left,
        };
        if name == partition {
            let placeholder = right.trim().trim_end_matches(')');
            out.extend(s_of(&body["ExpressionAttributeValues"][placeholder]));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// One item-level access (GetItem, PutItem, UpdateItem, DeleteItem, ConditionCheckItem) from its
/// request or transaction part.
fn item_access(action: &str, part: &Value, call: String) -> Access {
    let table = part["TableName"].as_str().unwrap_or_default();
    let key = if part["Item"].is_object() {
        &part["Item"]
    } else {
        &part["Key"]
    };
    let names = &part["ExpressionAttributeNames"];
    let mut access = Access::new(&format!("dynamodb:{action}"), table_arn(table), call)
        .with(LEADING_KEYS, s_of(&key["PK"]).into_iter().collect());
    match action {
        "GetItem" => {
            access = match part["ProjectionExpression"].as_str() {
                Some(p) => access
                    .with(ATTRIBUTES, names_in(p, names))
                    .with(SELECT, vec!["SPECIFIC_ATTRIBUTES".into()]),
                None => access.with(SELECT, vec!["ALL_ATTRIBUTES".into()]),
            };
        }
        "PutItem" => {
            let attrs = (part["Item"].as_object().into_iter().flatten())
                .map(|(k, _)| k.clone())
                .collect();
            access = access.with(ATTRIBUTES, attrs);
        }
        "UpdateItem" => {
            let mut attrs = names_in(part["UpdateExpression"].as_str().unwrap_or(""), names);
            const WORDS: [&str; 6] = [
                "SET",
                "REMOVE",
                "ADD",
                "DELETE",
                "if_not_exists",
                "list_append",
            ];
            attrs.retain(|a| !WORDS.contains(&a.as_str()) && a.starts_with(char::is_alphabetic));
            attrs.extend(["PK".to_string(), "SK".to_string()]);
            attrs.sort();
            attrs.dedup();
            access = access.with(ATTRIBUTES, attrs);
        }
        _ => {}
    }
    if let Some(rv) = part["ReturnValues"].as_str() {
        access = access.with(RETURN_VALUES, vec![rv.to_string()]);
    }
    access
}

fn dynamodb(op: &str, body: &Value) -> Vec<Access> {
    match op {
        "GetItem" | "PutItem" | "UpdateItem" | "DeleteItem" => {
            vec![item_access(op, body, op.to_string())]
        }
        "TransactWriteItems" | "TransactGetItems" => {
            let parts = body["TransactItems"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            parts
                .iter()
                .filter_map(|part| {
                    let (kind, inner) = part.as_object()?.iter().next()?;
                    let action = match kind.as_str() {
                        "ConditionCheck" => "ConditionCheckItem",
                        "Put" => "PutItem",
                        "Update" => "UpdateItem",
                        "Delete" => "DeleteItem",
                        "Get" => "GetItem",
                        _ => return None,
                    };
                    let call = format!("{op}: {kind}");
                    Some(item_access(action, inner, call))
                })
                .collect()
        }
        "Query" | "Scan" => {
            let table = body["TableName"].as_str().unwrap_or_default();
            let index = body["IndexName"].as_str();
            let resource = match index {
                Some(i) => format!("{}/index/{i}", table_arn(table)),
                None => table_arn(table),
            };
            let mut access = Access::new(&format!("dynamodb:{op}"), resource, op.to_string());
            if op == "Query" {
                let keys = query_leading_keys(body, &partition_attribute(index));
                access = access.with(LEADING_KEYS, keys);
            }
            let names = &body["ExpressionAttributeNames"];
            let select = match (
                body["Select"].as_str(),
                body["ProjectionExpression"].as_str(),
            ) {
                (Some(s), _) => s.to_string(),
                (None, Some(_)) => "SPECIFIC_ATTRIBUTES".into(),
                (None, None) => "ALL_ATTRIBUTES".into(),
            };
            if let Some(p) = body["ProjectionExpression"].as_str() {
                access = access.with(ATTRIBUTES, names_in(p, names));
            }
            vec![access.with(SELECT, vec![select])]
        }
        "BatchGetItem" | "BatchWriteItem" => {
            let tables = body["RequestItems"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            tables
                .iter()
                .map(|(table, requests)| {
                    let keys: Vec<String> = match op {
                        "BatchGetItem" => (requests["Keys"].as_array().into_iter().flatten())
                            .filter_map(|k| s_of(&k["PK"]))
                            .collect(),
                        _ => (requests.as_array().into_iter().flatten())
                            .filter_map(|r| {
                                s_of(&r["PutRequest"]["Item"]["PK"])
                                    .or_else(|| s_of(&r["DeleteRequest"]["Key"]["PK"]))
                            })
                            .collect(),
                    };
                    Access::new(&format!("dynamodb:{op}"), table_arn(table), op.to_string())
                        .with(LEADING_KEYS, keys)
                })
                .collect()
        }
        other => {
            let table = body["TableName"].as_str().unwrap_or_default();
            vec![Access::new(
                &format!("dynamodb:{other}"),
                table_arn(table),
                other.to_string(),
            )]
        }
    }
}
