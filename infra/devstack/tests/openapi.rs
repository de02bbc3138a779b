//! The handlers against `infra/openapi.yaml`: every endpoint, every error case, the tenant pages and
//! the webhooks are driven through the local server (against moto), each exchange is recorded as
//! (method, path template, status, headers, body), and a Python helper (the venv's `jsonschema`,
//! `referencing`, `openapi-spec-validator`, pinned in `infra/requirements-openapi.txt`) checks it
//! against the file: the status is documented for the operation, the Content-Type is one of the
//! documented media types, the body validates against that response's schema (JSON Schema 2020-12,
//! formats checked), every required header is present, every documented header validates, and no
//! undocumented API header appears. The documented statuses that no scenario produced are listed
//! and must be exactly the known ones. A second test feeds the helper deviating responses and
//! expects each to be caught.

mod common;
#[path = "openapi/households.rs"]
mod households;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::Utc;
use common::{Receiver, Reply, TestEnv, env};
use devstack::Workers;
use devstack::pump::{StreamPump, TtlDeletions, pump_sqs_once, sweep_ttl};
use serde_json::{Value, json};
use shared::domain::income::{
    PayFrequency, Payment, ProviderIncome, ProviderIncomeSource, VerificationMethod,
};
use shared::domain::report::build_report;
use shared::domain::{Mode, SubscriptionStatus, Transition, Verification};
use shared::ports::WebhookSecrets;
use shared::ports::store::prelude::*;

const API_VERIFY: &str = "/api/v1/verify";
const API_LIST: &str = "/api/v1/verifications";
const API_USAGE: &str = "/api/v1/usage";
const API_REPORT: &str = "/api/v1/verify/report";
const API_RESEND: &str = "/api/v1/verify/resend";
const API_DELIVERIES: &str = "/api/v1/webhooks/deliveries";
const API_REDELIVER: &str = "/api/v1/webhooks/redeliver";
const PAGE: &str = "/t/{verification_id}/{token}";
const PAGE_PDF: &str = "/t/{verification_id}/{token}/report.pdf";
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
    known = {n.lower() for n in documented}
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
    let input = json!({"spec": spec_path(), "exchanges": exchanges}).to_string();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "the OpenAPI validator failed (are infra/requirements-openapi.txt installed? `make tools`):\n{}",
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
    let r = env.create(key, body).await;
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
fn multi_source_report(rent: Option<f64>) -> shared::domain::report::IncomeReport {
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
    let input = shared::domain::NewVerificationInput {
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
    v.token_hashes = vec![shared::domain::secrets::sha256_hex(token.as_bytes())];
    v
}

/// The five endpoints: successes and every error the handlers give.
async fn drive_api(rec: &mut Recorder) {
    let env = env().await;
    let store = &env.store;
    let live = env.live_key.as_str();
    let test = env.test_key.as_str();

    // Create: full and minimal bodies, live and test keys.
    let full = create(rec, &env, "create full", live, json!({"tenant_email": "jane+good@example.com", "tenant_name": "Jane Doe", "tenant_phone": "+1 (555) 010-9999", "property_address": "1 Main St", "monthly_rent": 1500.5, "webhook_url": "https://hooks.example.com/tiv"})).await;
    let live_id = id_of(&full);
    let minimal = create(rec, &env, "create minimal", test, json!({"tenant_email": "min@example.com", "tenant_name": null, "monthly_rent": null, "property_address": "  "})).await;
    let pending_id = id_of(&minimal);

    // Idempotency: first, replay, another body.
    let body = json!({"tenant_email": "idem@example.com", "monthly_rent": 900}).to_string();
    for (label, b) in [
        ("idempotent first", body.clone()),
        ("idempotent replay", body.clone()),
        (
            "idempotency key reused",
            json!({"tenant_email": "other@example.com"}).to_string(),
        ),
    ] {
        let r = env
            .call_with(
                "POST",
                API_VERIFY,
                Some(test),
                Some(&b),
                &[("idempotency-key", "order-42")],
            )
            .await;
        rec.op(label, "POST", API_VERIFY, &r);
    }

    // Create: every 400, 413 and 415.
    for (label, raw) in [
        ("create empty object", "{}"),
        ("create invalid json", "{\"tenant_email\": "),
        ("create array body", "[1,2]"),
        (
            "create bad fields",
            r#"{"tenant_email":"nope@","tenant_phone":"12","monthly_rent":"1500","webhook_url":"https://10.0.0.8/x","tenant_name":7}"#,
        ),
        (
            "create too long name",
            &json!({"tenant_email": "a@example.com", "tenant_name": "x".repeat(201)}).to_string(),
        ),
        (
            "create rent out of range",
            r#"{"tenant_email":"a@example.com","monthly_rent":-1}"#,
        ),
        (
            "create subsidy without rent, multiple out of range",
            r#"{"tenant_email":"a@example.com","rent_subsidy_monthly":500,"income_multiple":6}"#,
        ),
        (
            "create subsidy above rent",
            r#"{"tenant_email":"a@example.com","monthly_rent":900,"rent_subsidy_monthly":901}"#,
        ),
        (
            "create insecure webhook",
            r#"{"tenant_email":"a@example.com","webhook_url":"ftp://example.com/x"}"#,
        ),
        (
            "create too large",
            &json!({"tenant_email": "a@example.com", "tenant_name": "x".repeat(20_000)})
                .to_string(),
        ),
    ] {
        let r = env.call("POST", API_VERIFY, Some(test), Some(raw)).await;
        rec.op(label, "POST", API_VERIFY, &r);
    }
    let r = env
        .call_with(
            "POST",
            API_VERIFY,
            Some(test),
            Some(r#"{"tenant_email":"a@example.com"}"#),
            &[("idempotency-key", "")],
        )
        .await;
    rec.op("create empty idempotency key", "POST", API_VERIFY, &r);
    let r = env
        .call_with(
            "POST",
            API_VERIFY,
            Some(test),
            None,
            &[("content-type", "text/plain")],
        )
        .await;
    rec.op("create text/plain", "POST", API_VERIFY, &r);
    let huge = format!(
        "{{\"tenant_email\":\"a@example.com\",\"tenant_name\":\"{}\"}}",
        "x".repeat(1_100_000)
    );
    let r = env.call("POST", API_VERIFY, Some(test), Some(&huge)).await;
    rec.op("create over the server's 1 MiB", "POST", API_VERIFY, &r);

    // Get: pending, completed (several sources, no rent), failed, expired; 400s and 404s.
    let r = env
        .call("GET", &verify_path(&pending_id), Some(test), None)
        .await;
    rec.op("get pending", "GET", API_VERIFY, &r);
    let r = env
        .call("GET", &verify_path(&live_id), Some(live), None)
        .await;
    rec.op("get live pending", "GET", API_VERIFY, &r);
    let completed = create(
        rec,
        &env,
        "create to complete",
        test,
        json!({"tenant_email": "done@example.com"}),
    )
    .await;
    let completed_id = id_of(&completed);
    let v = store
        .get_verification(completed_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    store
        .transition(
            &v,
            &Transition::Complete {
                report: Box::new(multi_source_report(v.monthly_rent)),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let r = env
        .call("GET", &verify_path(&completed_id), Some(test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "completed", "{}", r.raw);
    rec.op("get completed without rent", "GET", API_VERIFY, &r);
    let r = env
        .call("GET", &report_path(&completed_id), Some(test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert!(r.raw.starts_with("%PDF-"));
    rec.op(
        "report pdf of a completed verification",
        "GET",
        API_REPORT,
        &r,
    );
    for (label, path) in [
        ("report without id", API_REPORT.to_string()),
        ("report of a non-uuid id", report_path("123")),
    ] {
        let r = env.call("GET", &path, Some(test), None).await;
        assert_eq!(r.status, 400, "{}", r.raw);
        rec.op(label, "GET", API_REPORT, &r);
    }
    let r = env
        .call(
            "GET",
            &report_path(&uuid::Uuid::new_v4().to_string()),
            Some(test),
            None,
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.raw);
    rec.op("report of an unknown id", "GET", API_REPORT, &r);
    let failed = create(
        rec,
        &env,
        "create to fail",
        test,
        json!({"tenant_email": "fails@example.com", "monthly_rent": 10}),
    )
    .await;
    let failed_id = id_of(&failed);
    let v = store
        .get_verification(failed_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    store
        .transition(
            &v,
            &Transition::Fail {
                reason: "income_unverifiable".into(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let r = env
        .call("GET", &verify_path(&failed_id), Some(test), None)
        .await;
    rec.op("get failed", "GET", API_VERIFY, &r);
    let r = env
        .call("GET", &report_path(&failed_id), Some(test), None)
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
    rec.op("report of a failed verification", "GET", API_REPORT, &r);
    let late = stored_verification("late@example.com", "unused-token");
    store.create_verification(&late, None, None).await.unwrap();
    let late_id = late.verification_id.to_string();
    let r = env
        .call("GET", &verify_path(&late_id), Some(test), None)
        .await;
    assert_eq!(r.body["data"]["status"], "expired", "{}", r.raw);
    rec.op("get pending past expiry", "GET", API_VERIFY, &r);
    for (label, path) in [
        ("get without id", API_VERIFY.to_string()),
        ("get empty id", verify_path("")),
        ("get non-uuid id", verify_path("123")),
        (
            "get unknown id",
            verify_path(&uuid::Uuid::new_v4().to_string()),
        ),
        ("get live id with test key", verify_path(&live_id)),
    ] {
        let r = env.call("GET", &path, Some(test), None).await;
        rec.op(label, "GET", API_VERIFY, &r);
    }
    let r = env
        .call(
            "GET",
            &verify_path(&live_id),
            Some(&env.other_live_key),
            None,
        )
        .await;
    rec.op("get another account's id", "GET", API_VERIFY, &r);

    // List: pages, filters, clamping; 400s.
    for (label, query) in [
        ("list default", ""),
        ("list clamped", "?limit=500&offset=1"),
        ("list completed", "?status=completed"),
        ("list expired", "?status=expired&limit=1"),
        ("list empty filter", "?status="),
        ("list past the end", "?offset=10000"),
        ("list bad limit", "?limit=abc"),
        ("list zero limit", "?limit=0"),
        ("list negative offset", "?offset=-1"),
        ("list offset too deep", "?offset=10001"),
        ("list cancelled is not a status", "?status=cancelled"),
    ] {
        let r = env
            .call("GET", &format!("{API_LIST}{query}"), Some(test), None)
            .await;
        rec.op(label, "GET", API_LIST, &r);
    }
    let r = env.call("GET", API_LIST, Some(live), None).await;
    rec.op("list live", "GET", API_LIST, &r);

    // Usage.
    for (label, key) in [("usage test", test), ("usage live", live)] {
        let r = env.call("GET", API_USAGE, Some(key), None).await;
        rec.op(label, "GET", API_USAGE, &r);
    }

    // Cancel: success, then every refusal.
    let r = env
        .call("DELETE", &verify_path(&pending_id), Some(test), None)
        .await;
    rec.op("cancel pending", "DELETE", API_VERIFY, &r);
    for (label, path) in [
        ("cancel again", verify_path(&pending_id)),
        ("cancel completed", verify_path(&completed_id)),
        ("cancel failed", verify_path(&failed_id)),
        ("cancel expired", verify_path(&late_id)),
        ("cancel without id", API_VERIFY.to_string()),
        ("cancel non-uuid id", verify_path("not-a-uuid")),
        (
            "cancel unknown id",
            verify_path(&uuid::Uuid::new_v4().to_string()),
        ),
    ] {
        let r = env.call("DELETE", &path, Some(test), None).await;
        rec.op(label, "DELETE", API_VERIFY, &r);
    }

    // 401 on every operation, for each way a key can be wrong.
    every_operation(rec, &env, "401 missing key", None).await;
    let mut typo = env.test_key.clone();
    typo.replace_range(12..13, if &typo[12..13] == "a" { "b" } else { "a" });
    every_operation(rec, &env, "401 checksum typo", Some(&typo)).await;
    let unknown =
        shared::domain::secrets::generate_api_key(devstack::stack::DEMO_ACCOUNT, Mode::Live).secret;
    every_operation(rec, &env, "401 unknown key", Some(&unknown)).await;
    for (label, value) in [
        ("401 basic scheme", "Basic dXNlcjpwYXNz"),
        ("401 bearer without token", "Bearer "),
    ] {
        let r = env
            .call_with("GET", API_USAGE, None, None, &[("authorization", value)])
            .await;
        rec.op(label, "GET", API_USAGE, &r);
    }
    let (revoked_live, _) = devstack::stack::seed_account(store, "acct_revoked", "pro", false)
        .await
        .unwrap();
    let keys = store.list_api_keys("acct_revoked").await.unwrap();
    let key = keys.iter().find(|k| k.mode == Mode::Live).unwrap();
    assert!(
        store
            .revoke_api_key("acct_revoked", &key.key_id, Utc::now())
            .await
            .unwrap()
    );
    every_operation(rec, &env, "401 revoked key", Some(&revoked_live)).await;

    // 403: a plan without API access, an inactive subscription, the monthly allowance.
    let other = devstack::stack::OTHER_ACCOUNT;
    let other_live = env.other_live_key.clone();
    store
        .update_account(other, Some("starter"), None)
        .await
        .unwrap();
    every_operation(rec, &env, "403 plan without api", Some(&other_live)).await;
    store
        .update_account(
            other,
            Some("pro"),
            Some((
                SubscriptionStatus::PastDue,
                Utc::now() + chrono::Duration::days(3),
            )),
        )
        .await
        .unwrap();
    every_operation(rec, &env, "403 subscription inactive", Some(&other_live)).await;
    store
        .update_account(
            other,
            None,
            Some((
                SubscriptionStatus::Active,
                Utc::now() + chrono::Duration::days(30),
            )),
        )
        .await
        .unwrap();
    // `pro` allows 5 verifications a month in these tests.
    for i in 0..6 {
        let r = env
            .create(
                &other_live,
                json!({"tenant_email": format!("q{i}@example.com")}),
            )
            .await;
        rec.op(
            &format!("monthly allowance create {i}"),
            "POST",
            API_VERIFY,
            &r,
        );
    }
    let r = env
        .call(
            "POST",
            households::API_HOUSEHOLDS,
            Some(&other_live),
            Some(&households::two_applicants("limit")),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.raw);
    rec.op(
        "household beyond the allowance",
        "POST",
        households::API_HOUSEHOLDS,
        &r,
    );
    let r = env.call("GET", API_USAGE, Some(&other_live), None).await;
    assert_eq!(r.body["data"]["verifications"]["remaining"], 0, "{}", r.raw);
    rec.op("usage with the allowance used up", "GET", API_USAGE, &r);

    // 429 on every operation: `tiny` allows 3 API requests a day.
    let (tiny_live, _) = devstack::stack::seed_account(store, "acct_tiny", "tiny", false)
        .await
        .unwrap();
    for i in 0..3 {
        let r = env.call("GET", API_USAGE, Some(&tiny_live), None).await;
        rec.op(&format!("tiny usage {i}"), "GET", API_USAGE, &r);
    }
    every_operation(rec, &env, "429 allowance used up", Some(&tiny_live)).await;

    // Outside any operation: 405 and unknown routes.
    for (method, path) in [
        ("PUT", API_VERIFY),
        ("PATCH", API_LIST),
        ("POST", API_USAGE),
    ] {
        let r = env.call(method, path, Some(test), None).await;
        rec.component(&format!("{method} {path}"), "MethodNotAllowed", true, &r);
    }
    let r = env.call("GET", "/api/v2/nothing", Some(test), None).await;
    rec.component("unknown route", "NotFound", false, &r);
}

/// The tenant page in every state, and the webhooks the state changes send.
async fn drive_pages_and_webhooks(rec: &mut Recorder) {
    let env = env().await;
    let ttl = TtlDeletions::default();
    let mut pump = StreamPump::new(&env.sdk, &env.names.table, ttl.clone())
        .await
        .unwrap();
    let workers = Workers::new(
        &env.sdk,
        &env.names,
        &env.created,
        &env.base,
        vec![0],
        &env.webhook_origins,
    );
    env.store
        .put_webhook_secrets(
            devstack::stack::DEMO_ACCOUNT,
            &WebhookSecrets {
                current: Some(SECRET.into()),
                previous: None,
                previous_valid_until: None,
            },
        )
        .await
        .unwrap();
    let receiver = Receiver::start(vec![200], Duration::ZERO).await;
    let test = env.test_key.clone();

    // Through consent to each sandbox scenario.
    let mut links = Vec::new();
    let mut ids = Vec::new();
    for (scenario, rent) in [
        ("good", Some(1500.0)),
        ("gig", None),
        ("voucher", Some(1400.0)),
        ("fail", Some(800.0)),
        ("outage", Some(800.0)),
    ] {
        let mut body = json!({"tenant_email": format!("t+{scenario}@example.com"), "tenant_name": "Tia", "property_address": "9 Oak Lane", "webhook_url": receiver.url});
        if let Some(rent) = rent {
            body["monthly_rent"] = json!(rent);
        }
        if scenario == "voucher" {
            body["rent_subsidy_monthly"] = json!(1000);
            body["income_multiple"] = json!(2.5);
        }
        let r = create(rec, &env, &format!("create {scenario}"), &test, body).await;
        let id = id_of(&r);
        let link = link_of(&env, &r);
        let p = page(&env, "GET", &link, None).await;
        rec.op(&format!("{scenario}: consent page"), "GET", PAGE, &p);
        let p = page(&env, "POST", &link, Some("action=consent")).await;
        rec.op(&format!("{scenario}: consent unticked"), "POST", PAGE, &p);
        let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
        rec.op(&format!("{scenario}: consent"), "POST", PAGE, &p);
        let p = page(&env, "GET", &link, None).await;
        rec.op(&format!("{scenario}: connect page"), "GET", PAGE, &p);
        let p = page(&env, "POST", &link, Some("action=connect")).await;
        rec.op(
            &format!("{scenario}: connect without scenario"),
            "POST",
            PAGE,
            &p,
        );
        let p = page(&env, "POST", &link, Some("action=bogus")).await;
        rec.op(&format!("{scenario}: unknown action"), "POST", PAGE, &p);
        let p = page(
            &env,
            "POST",
            &link,
            Some(&format!("action=connect&scenario={scenario}")),
        )
        .await;
        rec.op(&format!("{scenario}: connect"), "POST", PAGE, &p);
        let p = page(&env, "GET", &link, None).await;
        rec.op(&format!("{scenario}: after connect"), "GET", PAGE, &p);
        let pdf = page(&env, "GET", &format!("{link}/report.pdf"), None).await;
        let completed = matches!(scenario, "good" | "gig" | "voucher");
        assert_eq!(pdf.status, if completed { 200 } else { 404 }, "{scenario}");
        rec.op(&format!("{scenario}: report pdf"), "GET", PAGE_PDF, &pdf);
        if completed {
            let p = page(&env, "POST", &link, Some("action=note&note=+")).await;
            assert_eq!(p.status, 400);
            rec.op(&format!("{scenario}: empty note"), "POST", PAGE, &p);
            let p = page(
                &env,
                "POST",
                &link,
                Some("action=note&note=New+job+from+May"),
            )
            .await;
            assert_eq!(p.status, 303);
            rec.op(&format!("{scenario}: note"), "POST", PAGE, &p);
            let p = page(&env, "POST", &link, Some("action=note&note=Another")).await;
            assert_eq!(p.status, 200);
            assert!(p.raw.contains("New job from May"));
            rec.op(&format!("{scenario}: second note"), "POST", PAGE, &p);
        }
        let r = env.call("GET", &verify_path(&id), Some(&test), None).await;
        rec.op(&format!("{scenario}: get"), "GET", API_VERIFY, &r);
        let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
        rec.op(&format!("{scenario}: consent again"), "POST", PAGE, &p);
        links.push(link);
        ids.push(id);
    }
    let r = env.call("GET", API_LIST, Some(&test), None).await;
    rec.op("list after the scenarios", "GET", API_LIST, &r);

    // Cancelled: the page says so (410), a webhook follows.
    let r = create(
        rec,
        &env,
        "create to cancel",
        &test,
        json!({"tenant_email": "c@example.com", "webhook_url": receiver.url}),
    )
    .await;
    let id = id_of(&r);
    let link = link_of(&env, &r);
    let r = env
        .call("DELETE", &verify_path(&id), Some(&test), None)
        .await;
    rec.op("cancel with webhook", "DELETE", API_VERIFY, &r);
    let p = page(&env, "GET", &link, None).await;
    rec.op("cancelled page", "GET", PAGE, &p);
    let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    rec.op("cancelled page form", "POST", PAGE, &p);
    let r = env
        .call(
            "POST",
            &format!("{API_RESEND}?verification_id={id}"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.raw);
    rec.op("resend a cancelled verification", "POST", API_RESEND, &r);

    // Resent: three a day (each a new e-mail and a `verification.resent` webhook), then 429.
    let r = create(
        rec,
        &env,
        "create to resend",
        &test,
        json!({"tenant_email": "r@example.com", "webhook_url": receiver.url}),
    )
    .await;
    let resend = format!("{API_RESEND}?verification_id={}", id_of(&r));
    for n in 1..=3 {
        let r = env.call("POST", &resend, Some(&test), None).await;
        assert_eq!(r.status, 202, "{}", r.raw);
        rec.op(&format!("resend {n}"), "POST", API_RESEND, &r);
    }
    let r = env.call("POST", &resend, Some(&test), None).await;
    assert_eq!(r.status, 429, "{}", r.raw);
    assert!(r.header("retry-after").is_some());
    rec.op("resend over the day's limit", "POST", API_RESEND, &r);

    // Expired: the page (410) before and after the TTL sweep; the sweep sends a webhook.
    let token = "ExpiredLinkTokenForTheOpenApiTest-0123456789ab";
    let mut late = stored_verification("late@example.com", token);
    late.webhook_url = Some(receiver.url.clone());
    env.store
        .create_verification(&late, None, None)
        .await
        .unwrap();
    let late_link = format!("/t/{}/{token}", late.verification_id);
    let p = page(&env, "GET", &late_link, None).await;
    rec.op("expired page", "GET", PAGE, &p);

    // Invalid links and methods.
    let bad = [
        format!("/t/{}/WrongToken", late.verification_id),
        format!("/t/{}/x", uuid::Uuid::new_v4()),
        "/t/not-a-uuid/x".to_string(),
    ];
    for path in &bad {
        let p = page(&env, "GET", path, None).await;
        rec.op(&format!("GET {path}"), "GET", PAGE, &p);
        let p = page(&env, "POST", path, Some("action=consent&agree=yes")).await;
        rec.op(&format!("POST {path}"), "POST", PAGE, &p);
    }
    for method in ["PUT", "DELETE"] {
        let p = page(&env, method, &links[0], None).await;
        rec.component(
            &format!("{method} on a link"),
            "HtmlMethodNotAllowed",
            true,
            &p,
        );
    }

    // A reminder of a pending verification (its schedule's invocation, as the local pump runs it).
    let reminded = create(
        rec,
        &env,
        "create to remind",
        &test,
        json!({"tenant_email": "t+remind@example.com", "property_address": "9 Oak Lane", "webhook_url": receiver.url}),
    )
    .await;
    let payload = shared::handlers::reach_events::ReminderPayload {
        verification_id: id_of(&reminded).parse().unwrap(),
        reminder: "72h".into(),
    };
    shared::handlers::send_reminders::send_reminders(&workers.reach, payload)
        .await
        .unwrap();

    // Settle the stream (e-mails, status changes), sweep TTL, deliver every webhook.
    drain(&mut pump, &workers).await;
    let dynamo = aws_sdk_dynamodb::Client::new(&env.sdk);
    sweep_ttl(&dynamo, &env.names.table, &ttl).await.unwrap();
    drain(&mut pump, &workers).await;
    let p = page(&env, "GET", &late_link, None).await;
    rec.op("expired page after the sweep", "GET", PAGE, &p);
    let sqs = aws_sdk_sqs::Client::new(&env.sdk);
    for _ in 0..10 {
        if pump_sqs_once(&sqs, &env.created.webhook_queue_url, &workers.delivery, 0)
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let received = receiver.received();
    let kinds: BTreeSet<String> = received
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        vec![
            "verification.cancelled",
            "verification.completed",
            "verification.expired",
            "verification.failed",
            "verification.in_progress",
            "verification.reminder_sent",
            "verification.resent"
        ]
    );
    for (i, r) in received.iter().enumerate() {
        rec.webhook(&format!("webhook {i}"), r);
    }
    drive_webhook_history(rec, &env, &ids[0]).await;
}

/// The delivery log and redelivery, once the scenarios' webhooks went out.
async fn drive_webhook_history(rec: &mut Recorder, env: &TestEnv, delivered: &str) {
    let test = env.test_key.clone();
    let deliveries =
        |id: &str, extra: &str| format!("{API_DELIVERIES}?verification_id={id}{extra}");
    let r = env
        .call("GET", &deliveries(delivered, ""), Some(&test), None)
        .await;
    assert_eq!(r.status, 200, "{}", r.raw);
    assert!(
        r.body["pagination"]["total"].as_u64().unwrap() >= 2,
        "{}",
        r.raw
    );
    rec.op("delivery log", "GET", API_DELIVERIES, &r);
    let event_id = r.body["data"][0]["event_id"].as_str().unwrap().to_string();
    let r = env
        .call(
            "GET",
            &deliveries(delivered, "&limit=ten"),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 400);
    rec.op("delivery log, bad limit", "GET", API_DELIVERIES, &r);
    let r = env
        .call(
            "GET",
            &deliveries(delivered, ""),
            Some(&env.other_test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    rec.op("delivery log, other account", "GET", API_DELIVERIES, &r);

    let redeliver = |id: &str| format!("{API_REDELIVER}?event_id={id}");
    let r = env
        .call("POST", &redeliver(&event_id), Some(&test), None)
        .await;
    assert_eq!(r.status, 202, "{}", r.raw);
    rec.op("redeliver", "POST", API_REDELIVER, &r);
    let r = env
        .call(
            "POST",
            &redeliver(&event_id),
            Some(&env.other_test_key),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    rec.op("redeliver, other account", "POST", API_REDELIVER, &r);
    let r = env.call("POST", API_REDELIVER, Some(&test), None).await;
    assert_eq!(r.status, 400);
    rec.op("redeliver without an event id", "POST", API_REDELIVER, &r);
    // An id naming the caller's verification without a webhook_url: 409.
    let plain = env
        .create(&test, json!({"tenant_email": "nohook@example.com"}))
        .await;
    let plain_id: uuid::Uuid = id_of(&plain).parse().unwrap();
    let r = env
        .call(
            "POST",
            &redeliver(&format!("msg_{}_in_progress", plain_id.simple())),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.raw);
    rec.op("redeliver, no webhook_url", "POST", API_REDELIVER, &r);
    let r = env
        .call(
            "POST",
            &format!("{API_RESEND}?verification_id={}", uuid::Uuid::new_v4()),
            Some(&test),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    rec.op("resend an unknown verification", "POST", API_RESEND, &r);
}

/// Runs the stream pump until it has nothing new (bounded).
async fn drain(pump: &mut StreamPump, workers: &Workers) {
    for _ in 0..30 {
        if pump
            .pump_once(&workers.outbox, &workers.expiry)
            .await
            .unwrap()
            == 0
        {
            return;
        }
    }
    panic!("the stream did not settle");
}

/// The store gone: every operation and the page answer 500 without internals.
async fn drive_internal_errors(rec: &mut Recorder) {
    let env = env().await;
    let test = env.test_key.clone();
    let r = env
        .create(&test, json!({"tenant_email": "x@example.com"}))
        .await;
    let link = link_of(&env, &r);
    let dynamo = aws_sdk_dynamodb::Client::new(&env.sdk);
    dynamo
        .delete_table()
        .table_name(&env.names.table)
        .send()
        .await
        .unwrap();
    every_operation(rec, &env, "500 without a table", Some(&test)).await;
    let p = page(&env, "GET", &link, None).await;
    rec.op("500 page", "GET", PAGE, &p);
    let p = page(&env, "POST", &link, Some("action=consent&agree=yes")).await;
    rec.op("500 page form", "POST", PAGE, &p);
    let p = page(&env, "GET", &format!("{link}/report.pdf"), None).await;
    rec.op("500 report pdf", "GET", PAGE_PDF, &p);
}

// ---------------------------------------------------------------------------------------------
// Tests

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_matches_the_openapi_file() {
    let mut rec = Recorder::default();
    drive_api(&mut rec).await;
    drive_pages_and_webhooks(&mut rec).await;
    households::drive_households(&mut rec).await;
    drive_internal_errors(&mut rec).await;
    let report = validate(&rec.exchanges);
    let problems = problems(&report);
    assert!(
        problems.is_empty(),
        "{} of {} responses deviate from infra/openapi.yaml:\n  {}",
        problems.len(),
        report["checked"],
        problems.join("\n  ")
    );
    let uncovered: BTreeSet<(String, String, String)> = report["uncovered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u[0].as_str().unwrap().to_string(),
                u[1].as_str().unwrap().to_string(),
                u[2].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: BTreeSet<(String, String, String)> = NOT_PRODUCIBLE
        .iter()
        .map(|(m, p, s, _)| (m.to_string(), p.to_string(), s.to_string()))
        .collect();
    assert_eq!(
        uncovered, expected,
        "documented responses no scenario produced (add a scenario, or list it in NOT_PRODUCIBLE with the reason)"
    );
}

/// The validator is not a rubber stamp: each deviation below must be reported.
#[test]
fn the_validator_catches_deviations() {
    let created = json!({"success": true, "data": {"verification_id": "2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081", "verification_url": "http://127.0.0.1:3000/t/2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "tenant_email": "a@example.com", "status": "pending", "expires_at": "2026-11-28T10:15:00.000Z"}});
    let rate = json!({"content-type": "application/json", "x-ratelimit-limit": "500", "x-ratelimit-remaining": "499", "x-ratelimit-reset": "1795000000", "x-request-id": "r-1"});
    let op = |label: &str, method: &str, path: &str, status: u16, headers: &Value, body: &Value| json!({"label": label, "kind": "operation", "method": method, "path": path, "status": status, "headers": headers, "body": body.to_string()});
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v = created.clone();
        f(&mut v);
        v
    };
    let mut headers_without_reset = rate.clone();
    headers_without_reset
        .as_object_mut()
        .unwrap()
        .remove("x-ratelimit-reset");
    let mut html = rate.clone();
    html["content-type"] = json!("text/html; charset=utf-8");
    let mut bad_remaining = rate.clone();
    bad_remaining["x-ratelimit-remaining"] = json!("many");
    let mut extra_header = rate.clone();
    extra_header["x-debug"] = json!("1");
    let mut pdf_headers = rate.clone();
    pdf_headers["content-type"] = json!("application/pdf");
    pdf_headers["content-disposition"] =
        json!("attachment; filename=\"income-report-2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081.pdf\"");
    pdf_headers["cache-control"] = json!("no-store");
    pdf_headers["x-content-type-options"] = json!("nosniff");
    let mut pdf_headers_without_disposition = pdf_headers.clone();
    pdf_headers_without_disposition
        .as_object_mut()
        .unwrap()
        .remove("content-disposition");
    let unauthorized = json!({"success": false, "error": "no", "code": "missing_api_key", "details": [], "request_id": "r"});
    let webhook_body = json!({"type": "verification.cancelled", "timestamp": "2026-11-28T10:15:00.000Z", "data": {"verification_id": "2d5a3e4f-7f6c-4a0d-9e9f-3c4d5e6f7081", "status": "cancelled", "tenant": {"email": "a@example.com", "name": null}, "property": {"address": null, "monthly_rent": null}, "created_at": "2026-11-28T10:15:00.000Z", "completed_at": null}});
    let cases = vec![
        (
            "control",
            "",
            op("control", "post", API_VERIFY, 201, &rate, &created),
        ),
        (
            "extra field",
            "Additional properties are not allowed ('extra'",
            op(
                "extra field",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| v["data"]["extra"] = json!(1)),
            ),
        ),
        (
            "missing field",
            "'expires_at' is a required property",
            op(
                "missing field",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| {
                    v["data"].as_object_mut().unwrap().remove("expires_at");
                }),
            ),
        ),
        (
            "timestamp without millis",
            "does not match",
            op(
                "timestamp without millis",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| v["data"]["expires_at"] = json!("2026-11-28T10:15:00Z")),
            ),
        ),
        (
            "status not pending",
            "'pending' was expected",
            op(
                "status not pending",
                "post",
                API_VERIFY,
                201,
                &rate,
                &with(&|v| v["data"]["status"] = json!("cancelled")),
            ),
        ),
        (
            "undocumented status",
            "status 418 is not documented",
            op(
                "undocumented status",
                "post",
                API_VERIFY,
                418,
                &rate,
                &created,
            ),
        ),
        (
            "missing rate header",
            "required header X-RateLimit-Reset is missing",
            op(
                "missing rate header",
                "post",
                API_VERIFY,
                201,
                &headers_without_reset,
                &created,
            ),
        ),
        (
            "non-integer rate header",
            "header X-RateLimit-Remaining='many'",
            op(
                "non-integer rate header",
                "post",
                API_VERIFY,
                201,
                &bad_remaining,
                &created,
            ),
        ),
        (
            "undocumented header",
            "undocumented header x-debug",
            op(
                "undocumented header",
                "post",
                API_VERIFY,
                201,
                &extra_header,
                &created,
            ),
        ),
        (
            "wrong content type",
            "Content-Type text/html; charset=utf-8 is not documented",
            op(
                "wrong content type",
                "post",
                API_VERIFY,
                201,
                &html,
                &created,
            ),
        ),
        (
            "401 without www-authenticate",
            "required header WWW-Authenticate is missing",
            op(
                "401 without www-authenticate",
                "get",
                API_USAGE,
                401,
                &json!({"content-type": "application/json", "x-request-id": "r"}),
                &unauthorized,
            ),
        ),
        (
            "401 with a 403 code",
            "'subscription_inactive' is not one of",
            op(
                "401 with a 403 code",
                "get",
                API_USAGE,
                401,
                &json!({"content-type": "application/json", "x-request-id": "r", "www-authenticate": "Bearer realm=\"api\", error=\"invalid_token\""}),
                &json!({"success": false, "error": "no", "code": "subscription_inactive", "details": [], "request_id": "r"}),
            ),
        ),
        (
            "cancelled webhook data.status",
            "'cancelled' is not one of ['expired']",
            json!({"label": "cancelled webhook data.status", "kind": "webhook", "webhook": "verification.cancelled", "headers": {"content-type": "application/json", "webhook-id": "msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_cancelled", "webhook-timestamp": "1795000000", "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}, "body": webhook_body.to_string()}),
        ),
        (
            "webhook without signature",
            "required header webhook-signature is missing",
            json!({"label": "webhook without signature", "kind": "webhook", "webhook": "verification.cancelled", "headers": {"content-type": "application/json", "webhook-id": "msg_2d5a3e4f7f6c4a0d9e9f3c4d5e6f7081_cancelled", "webhook-timestamp": "1795000000"}, "body": webhook_body.to_string().replace("\"status\":\"cancelled\"", "\"status\":\"expired\"")}),
        ),
        (
            "report that is not a pdf",
            "not a PDF document",
            json!({"label": "report that is not a pdf", "kind": "operation", "method": "get", "path": API_REPORT, "status": 200, "headers": pdf_headers, "body": "<html>oops</html>"}),
        ),
        (
            "report without its file name",
            "required header Content-Disposition is missing",
            json!({"label": "report without its file name", "kind": "operation", "method": "get", "path": API_REPORT, "status": 200, "headers": pdf_headers_without_disposition, "body": "%PDF-1.7"}),
        ),
        (
            "undocumented operation",
            "PUT /api/v1/usage is not in the file",
            op(
                "undocumented operation",
                "put",
                API_USAGE,
                200,
                &rate,
                &created,
            ),
        ),
    ];
    let exchanges: Vec<Value> = cases.iter().map(|(_, _, e)| e.clone()).collect();
    let report = validate(&exchanges);
    let problems = problems(&report);
    assert!(
        !problems.iter().any(|p| p.contains("validator error")),
        "the validator itself failed: {problems:#?}"
    );
    for (label, expected, _) in &cases {
        let mine: Vec<&String> = problems
            .iter()
            .filter(|p| p.starts_with(&format!("{label}:")) || p.starts_with(&format!("{label} [")))
            .collect();
        if *label == "control" {
            assert!(mine.is_empty(), "the control case must pass: {mine:#?}");
        } else {
            assert!(
                mine.iter().any(|p| p.contains(expected)),
                "deviation '{label}' was not reported as '{expected}'; got {mine:#?}"
            );
        }
    }
}
