//! The handlers against `infra/openapi.yaml`: every endpoint, every error case, the tenant pages and
//! the webhooks are driven through the local server (against moto), each exchange is recorded as
//! (method, path template, status, headers, body), and a Python helper (the venv's `jsonschema`,
//! `referencing`, `openapi-spec-validator`, pinned in `infra/requirements-test.txt`) checks it
//! against the file: the status is documented for the operation, the Content-Type is one of the
//! documented media types, the body validates against that response's schema (JSON Schema 2020-12,
//! formats checked), every required header is present, every documented header validates, and no
//! undocumented API header appears. The documented statuses that no scenario produced are listed
//! and must be exactly the known ones. A second test feeds the helper deviating responses and
//! expects each to be caught.

use crate::common;
mod households;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::Utc;
use common::{Receiver, Reply, TestEnv, env};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once, sweep_ttl};
use domain::income::{
    PayFrequency, Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};
use domain::report::build_report;
use domain::{Mode, SubscriptionStatus, Transition, Verification};
use ports::WebhookSecrets;
use ports::store::prelude::*;
use serde_json::{Value, json};

mod api_calls;
mod checks;
mod pages_and_webhooks;
#[allow(unused_imports)]
use api_calls::*;
#[allow(unused_imports)]
use checks::*;
#[allow(unused_imports)]
use pages_and_webhooks::*;

const API_VERIFY: &str = "/api/v1/verify";
const API_LIST: &str = "/api/v1/verifications";
const API_USAGE: &str = "/api/v1/usage";
const API_REPORT: &str = "/api/v1/verify/report";
const API_DOCUMENTS: &str = "/api/v1/verify/documents";
const API_RESEND: &str = "/api/v1/verify/resend";
const API_REVIEW: &str = "/api/v1/verify/review";
const API_DELIVERIES: &str = "/api/v1/webhooks/deliveries";
const API_REDELIVER: &str = "/api/v1/webhooks/redeliver";
const API_ERASE: &str = "/api/v1/verify/data";
const PAGE: &str = "/t/{verification_id}/{token}";
const PAGE_PDF: &str = "/t/{verification_id}/{token}/report.pdf";
const PAGE_SAMPLE: &str = "/t/{verification_id}/{token}/samples/{sample}.pdf";
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// Documented responses no scenario here can produce, with the reason.
const NOT_PRODUCIBLE: &[(&str, &str, &str, &str)] = &[
    (
        "post",
        API_VERIFY,
        "409",
        "reserved by the design; the idempotency record is written in the create transaction, so duplicates replay",
    ),
    (
        "post",
        households::API_HOUSEHOLDS,
        "409",
        "only when concurrent replays of one key keep changing a member's replay links; the idempotency record is written in the create transaction",
    ),
    (
        "get",
        PAGE,
        "503",
        "the sandbox provider (the only one locally) never fails to start a connection",
    ),
];

fn spec_path() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../openapi.yaml")
}

// ---------------------------------------------------------------------------------------------
// Recording

/// What was exchanged, in the shape the validator reads.
#[derive(Default)]
struct Recorder {
    exchanges: Vec<Value>,
}

fn header_map(headers: &reqwest::header::HeaderMap) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (name, value) in headers {
        out.entry(name.as_str().to_ascii_lowercase())
            .or_insert_with(|| String::from_utf8_lossy(value.as_bytes()).into_owned());
    }
    out
}

impl Recorder {
    /// A response of the operation `method path` (path as templated in the file).
    fn op(&mut self, label: &str, method: &str, path: &str, reply: &Reply) {
        self.exchanges.push(json!({
            "label": label,
            "kind": "operation",
            "method": method.to_ascii_lowercase(),
            "path": path,
            "status": reply.status,
            "headers": header_map(&reply.headers),
            "body": reply.raw,
        }));
    }

    /// A response checked against `components.responses.<name>` (answers outside any operation:
    /// 405, unknown routes). `headers` false checks the body only.
    fn component(&mut self, label: &str, name: &str, headers: bool, reply: &Reply) {
        self.exchanges.push(json!({
            "label": label,
            "kind": "component",
            "component": name,
            "check_headers": headers,
            "status": reply.status,
            "headers": header_map(&reply.headers),
            "body": reply.raw,
        }));
    }

    /// A webhook delivery as a receiver saw it (checked against `webhooks.<type>`).
    fn webhook(&mut self, label: &str, received: &common::Received) {
        let kind = serde_json::from_str::<Value>(&received.body)
            .ok()
            .and_then(|b| b["type"].as_str().map(str::to_string))
            .unwrap_or_default();
        let headers: BTreeMap<String, String> = received
            .headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect();
        self.exchanges.push(json!({
            "label": label,
            "kind": "webhook",
            "webhook": kind,
            "headers": headers,
            "body": received.body,
        }));
    }
}

// ---------------------------------------------------------------------------------------------
// The validator (Python: the venv's jsonschema, referencing, openapi-spec-validator, PyYAML)

const VALIDATOR: &str = r##"
import json, re, sys
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from openapi_spec_validator import validate as validate_spec

request = json.load(sys.stdin)
doc = yaml.safe_load(open(request["spec"], encoding="utf-8"))
problems = []
try:
    validate_spec(doc)
except Exception as e:  # noqa: BLE001
    problems.append("openapi.yaml is not a valid OpenAPI 3.1 document: %s" % str(e).splitlines()[0])

BASE = "urn:tiv:openapi"
registry = Registry().with_resource(BASE, Resource.from_contents(doc, default_specification=DRAFT202012))
# Headers every HTTP stack adds; any other header must be documented on the response.
TRANSPORT = {"content-type", "content-length", "date", "connection", "transfer-encoding", "keep-alive"}
WEBHOOK_TRANSPORT = TRANSPORT | {"host", "user-agent", "accept", "accept-encoding"}
# Headers the service sends on every response, API and tenant page alike (EVERY_RESPONSE in
# shared/service/src/http.rs): each recorded response must carry them with these values.
EVERY_RESPONSE = dict(request["every_response"])


def esc(part):
    return part.replace("~", "~0").replace("/", "~1")


def get(ptr):
    node = doc
    for part in ptr.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def deref(ptr):
    node = get(ptr)
    for _ in range(20):
        if not (isinstance(node, dict) and "$ref" in node):
            return ptr, node
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError("only local references are supported: " + ref)
        ptr = ref[1:]
        node = get(ptr)
    raise ValueError("reference loop at " + ptr)


def schema_errors(ptr, instance):
    validator = Draft202012Validator(
        {"$ref": BASE + "#" + ptr}, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    return [
        "%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(root)", e.message)
        for e in validator.iter_errors(instance)
    ]


def coerce(value, schema):
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "integer" in types and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    if "number" in types and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value):
        return float(value)
    return value


def check_headers(label, ptr, documented, headers, transport):
    for name in documented:
        hptr, hdef = deref("%s/%s" % (ptr, esc(name)))
        value = headers.get(name.lower())
        if value is None:
            if hdef.get("required"):
                problems.append("%s: required header %s is missing" % (label, name))
            continue
        sptr, schema = deref(hptr + "/schema")
        for err in schema_errors(sptr, coerce(value, schema)):
            problems.append("%s: header %s=%r: %s" % (label, name, value, err))
    for name, value in EVERY_RESPONSE.items():
        if headers.get(name) != value:
            problems.append("%s: header %s=%r, not %r" % (label, name, headers.get(name), value))
    known = {n.lower() for n in documented} | set(EVERY_RESPONSE)
    for name in headers:
        if name not in known and name not in transport:
            problems.append("%s: undocumented header %s" % (label, name))


def check_body(label, media_ptr, media, body):
    sptr = media_ptr + "/schema"
    if media == "application/json":
        try:
            instance = json.loads(body)
        except ValueError:
            problems.append("%s: body is not JSON: %r" % (label, body[:200]))
            return
    else:
        instance = body
        if media == "text/html" and not body.lstrip().lower().startswith("<!doctype html"):
            problems.append("%s: not an HTML document" % label)
        if media == "application/pdf" and not body.startswith("%PDF-"):
            problems.append("%s: not a PDF document" % label)
    for err in schema_errors(sptr, instance):
        problems.append("%s: body %s" % (label, err))


def check_response(label, rptr, response, ex, with_headers=True):
    content = response.get("content") or {}
    ctype = ex["headers"].get("content-type")
    if content:
        media = (ctype or "").split(";")[0].strip().lower()
        if not ctype:
            problems.append("%s: no Content-Type (documented: %s)" % (label, ", ".join(content)))
        elif media not in content:
            problems.append("%s: Content-Type %s is not documented (%s)" % (label, ctype, ", ".join(content)))
        else:
            check_body(label, "%s/content/%s" % (rptr, esc(media)), media, ex["body"])
    elif ex["body"]:
        problems.append("%s: a body (%r) where the file documents none" % (label, ex["body"][:80]))
    if with_headers:
        check_headers(label, rptr + "/headers", response.get("headers") or {}, ex["headers"], TRANSPORT)


covered = set()
for ex in request["exchanges"]:
    label = ex["label"]
    try:
        if ex["kind"] == "operation":
            item = doc["paths"].get(ex["path"])
            if item is None or ex["method"] not in item:
                problems.append("%s: %s %s is not in the file" % (label, ex["method"].upper(), ex["path"]))
                continue
            responses_ptr = "/paths/%s/%s/responses" % (esc(ex["path"]), ex["method"])
            responses = get(responses_ptr)
            status = str(ex["status"])
            key = next((k for k in (status, status[0] + "XX", "default") if k in responses), None)
            if key is None:
                problems.append("%s: status %s is not documented for %s %s (body %r)"
                                % (label, status, ex["method"].upper(), ex["path"], ex["body"][:300]))
                continue
            covered.add((ex["method"], ex["path"], key))
            rptr, response = deref("%s/%s" % (responses_ptr, esc(key)))
            check_response("%s [%s %s %s]" % (label, ex["method"].upper(), ex["path"], status), rptr, response, ex)
        elif ex["kind"] == "component":
            rptr, response = deref("/components/responses/" + esc(ex["component"]))
            check_response("%s [%s %s]" % (label, ex["component"], ex["status"]), rptr, response, ex,
                           with_headers=ex["check_headers"])
        elif ex["kind"] == "webhook":
            name = ex["webhook"]
            if name not in (doc.get("webhooks") or {}):
                problems.append("%s: webhook type %r is not in the file" % (label, name))
                continue
            covered.add(("webhook", name, ""))
            optr = "/webhooks/%s/post" % esc(name)
            op = get(optr)
            content = deref(optr + "/requestBody")[1]["content"]
            media = (ex["headers"].get("content-type") or "").split(";")[0].strip().lower()
            if media not in content:
                problems.append("%s: Content-Type %r is not documented" % (label, media))
            else:
                rb_ptr = deref(optr + "/requestBody")[0]
                check_body(label, "%s/content/%s" % (rb_ptr, esc(media)), media, ex["body"])
            params = {}
            for i, _ in enumerate(op.get("parameters") or []):
                pptr, p = deref("%s/parameters/%d" % (optr, i))
                if p["in"] == "header":
                    params[p["name"]] = (pptr, p)
            for name_, (pptr, p) in params.items():
                value = ex["headers"].get(name_.lower())
                if value is None:
                    if p.get("required"):
                        problems.append("%s: required header %s is missing" % (label, name_))
                    continue
                sptr, schema = deref(pptr + "/schema")
                for err in schema_errors(sptr, coerce(value, schema)):
                    problems.append("%s: header %s=%r: %s" % (label, name_, value, err))
            for name_ in ex["headers"]:
                if name_ not in {n.lower() for n in params} and name_ not in WEBHOOK_TRANSPORT:
                    problems.append("%s: undocumented webhook header %s" % (label, name_))
        else:
            problems.append("%s: unknown exchange kind" % label)
    except Exception as e:  # noqa: BLE001
        problems.append("%s: validator error %s: %s" % (label, type(e).__name__, e))

uncovered = []
for path, item in (doc.get("paths") or {}).items():
    for method, op in item.items():
        if method not in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
            continue
        for key in op.get("responses") or {}:
            if (method, path, key) not in covered:
                uncovered.append([method, path, key])
for name in doc.get("webhooks") or {}:
    if ("webhook", name, "") not in covered:
        uncovered.append(["webhook", name, ""])
json.dump({"problems": problems, "uncovered": uncovered, "checked": len(request["exchanges"])}, sys.stdout)
"##;

/// Runs the validator over `exchanges`; returns its report.
fn validate(exchanges: &[Value]) -> Value {
    use std::io::Write;
    let python = devstack::moto::moto_python();
    let mut child = std::process::Command::new(&python)
        .arg("-c")
        .arg(VALIDATOR)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (run `make tools`)", python.display()));
    let every_response = service::http::EVERY_RESPONSE;
    let input =
        json!({"spec": spec_path(), "exchanges": exchanges, "every_response": every_response})
            .to_string();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "the OpenAPI validator failed (are infra/requirements-test.txt installed? `make test`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("validator report")
}

fn problems(report: &Value) -> Vec<String> {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Scenarios

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A tenant-page request (no API key, form body, redirects not followed).
async fn page(env: &TestEnv, method: &str, path: &str, form: Option<&str>) -> Reply {
    let mut req = no_redirects().request(
        reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
        format!("{}{path}", env.base),
    );
    if let Some(form) = form {
        req = req
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.to_string());
    }
    let resp = req.send().await.expect("local server answers");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let raw = resp.text().await.unwrap();
    Reply {
        status,
        body: serde_json::from_str(&raw).unwrap_or(Value::Null),
        headers,
        raw,
    }
}

fn verify_path(id: &str) -> String {
    format!("{API_VERIFY}?verification_id={id}")
}

fn report_path(id: &str) -> String {
    format!("{API_REPORT}?verification_id={id}")
}

async fn create(rec: &mut Recorder, env: &TestEnv, label: &str, key: &str, body: Value) -> Reply {
    let r = env.create_verification(key, body).await;
    rec.op(label, "POST", API_VERIFY, &r);
    r
}

fn id_of(r: &Reply) -> String {
    assert_eq!(r.status, 201, "{}", r.raw);
    r.body["data"]["verification_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The link path (`/t/{id}/{token}`) of a create reply.
fn link_of(env: &TestEnv, r: &Reply) -> String {
    r.body["data"]["verification_url"]
        .as_str()
        .unwrap()
        .strip_prefix(&env.base)
        .unwrap()
        .to_string()
}

/// Calls every API operation with `key` and records them under `label`.
async fn every_operation(rec: &mut Recorder, env: &TestEnv, label: &str, key: Option<&str>) {
    let some_id = uuid::Uuid::new_v4().to_string();
    let household_body = households::two_applicants(&some_id[..8]);
    let calls = [
        (
            "POST",
            API_VERIFY.to_string(),
            Some(r#"{"tenant_email":"x@example.com"}"#),
        ),
        ("GET", verify_path(&some_id), None),
        ("DELETE", verify_path(&some_id), None),
        ("GET", API_LIST.to_string(), None),
        ("GET", API_USAGE.to_string(), None),
        ("GET", report_path(&some_id), None),
        (
            "GET",
            format!("{API_DOCUMENTS}?verification_id={some_id}"),
            None,
        ),
        (
            "POST",
            format!("{API_RESEND}?verification_id={some_id}"),
            None,
        ),
        (
            "GET",
            format!("{API_DELIVERIES}?verification_id={some_id}"),
            None,
        ),
        (
            "POST",
            format!("{API_REDELIVER}?event_id=msg_unknown_completed"),
            None,
        ),
        (
            "POST",
            households::API_HOUSEHOLDS.to_string(),
            Some(household_body.as_str()),
        ),
        ("GET", households::household_path(&some_id), None),
        ("DELETE", households::household_path(&some_id), None),
        (
            "DELETE",
            format!("{API_ERASE}?verification_id={some_id}"),
            None,
        ),
        (
            "POST",
            format!("{API_REVIEW}?verification_id={some_id}"),
            Some(r#"{"decision":"accepted","note":"ok"}"#),
        ),
    ];
    for (method, path, body) in calls {
        let r = env.call(method, &path, key, body).await;
        let template = path.split('?').next().unwrap().to_string();
        rec.op(
            &format!("{label}: {method} {template}"),
            method,
            &template,
            &r,
        );
    }
}

/// A report with every kind of source: regular and irregular counted ones, a single stub at
/// its stated pay, and sources left out as a one-off, ended and not income.
fn multi_source_report(rent: Option<f64>) -> domain::report::IncomeReport {
    let as_of = chrono::NaiveDate::from_ymd_opt(2026, 11, 13).unwrap();
    let cycle = |name: &str, category: &str, f: PayFrequency, last, n, amount: f64| {
        ProviderIncomeSource::on_cycle(name, category, f, last, n, move |_| amount)
    };
    let paid = |name: &str, category: &str, dates: &[(&str, f64)]| ProviderIncomeSource {
        name: name.into(),
        category: category.into(),
        payments: dates
            .iter()
            .map(|(d, amount)| Payment {
                date: d.parse().unwrap(),
                amount: *amount,
            })
            .collect(),
        ..Default::default()
    };
    let stub = ProviderIncomeSource {
        method: Some(VerificationMethod::Document),
        pay_rate: Some(1200.0),
        ..cycle(
            "Pay stub",
            "SALARY",
            PayFrequency::SemiMonthly,
            as_of,
            1,
            1150.0,
        )
    };
    build_report(
        &ProviderIncome {
            as_of,
            method: VerificationMethod::Payroll,
            provider_confidence: None,
            sources: vec![
                cycle("Acme", "salary", PayFrequency::Weekly, as_of, 40, 700.0),
                paid(
                    "Tips",
                    "CASH",
                    &[("2026-10-02", 180.25), ("2026-11-01", 95.5)],
                ),
                cycle(
                    "Pension",
                    "RETIREMENT",
                    PayFrequency::Daily,
                    as_of,
                    200,
                    12.0,
                ),
                stub,
                paid("Deposit", "CASH_DEPOSIT", &[("2026-09-01", 4000.0)]),
                cycle(
                    "Old job",
                    "SALARY",
                    PayFrequency::Biweekly,
                    as_of - chrono::Duration::days(120),
                    8,
                    900.0,
                ),
                cycle(
                    "Savings",
                    "TRANSFER_OWN_ACCOUNTS",
                    PayFrequency::Monthly,
                    as_of,
                    3,
                    500.0,
                ),
            ],
        },
        rent,
    )
}

/// A verification written straight to the store (states the API cannot reach by itself).
fn stored_verification(email: &str, token: &str) -> Verification {
    let input = domain::NewVerificationInput {
        tenant_email: email.into(),
        ..Default::default()
    };
    let created = Utc::now() - chrono::Duration::days(8);
    let lifetime = chrono::Duration::days(8) - chrono::Duration::seconds(1);
    let mut v = Verification::new_pending(
        devstack::stack::DEMO_ACCOUNT,
        Mode::Test,
        input,
        created,
        lifetime,
    );
    v.token_hashes = vec![domain::secrets::sha256_hex(token.as_bytes())];
    v
}
