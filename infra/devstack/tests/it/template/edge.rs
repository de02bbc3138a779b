//! The optional edge (`EdgeProtection`): a CloudFront distribution with an AWS WAF web ACL in front
//! of the HTTP API, and a secret origin header every HTTP function checks, so the execute-api URL
//! is no way around the WAF. Its resources exist only with the parameter on; the web ACL is made
//! here only in us-east-1, and by infra/edge-waf.yaml (kept equal to it) elsewhere.

use std::collections::{BTreeMap, BTreeSet};

use service::http::origin::{ORIGIN_HEADER, VIEWER_HOST_HEADER};

use super::*;

fn companion() -> Value {
    let raw = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../infra/edge-waf.yaml"),
    )
    .unwrap();
    serde_yaml::from_str(&raw).expect("infra/edge-waf.yaml parses")
}

fn written(v: &Value) -> String {
    serde_yaml::to_string(v).unwrap()
}

fn tagged<'v>(v: &'v Value, tag: &str) -> Option<&'v Value> {
    match v {
        Value::Tagged(t) if t.tag == tag => Some(&t.value),
        _ => None,
    }
}

/// A deploy's parameter values (the template's defaults for any not given) and its region.
struct Deploy<'a> {
    template: &'a Value,
    given: BTreeMap<&'static str, &'static str>,
}

impl Deploy<'_> {
    fn value(&self, name: &str) -> String {
        if let Some(v) = self.given.get(name) {
            return v.to_string();
        }
        let default = &self.template["Parameters"][name]["Default"];
        match default {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => panic!("{name} has no default: give it"),
        }
    }

    /// One side of an `!Equals`: a literal or a `!Ref` to a parameter or `AWS::Region`.
    fn operand(&self, v: &Value) -> String {
        match (v, tagged(v, "!Ref")) {
            (_, Some(name)) => self.value(name.as_str().unwrap()),
            (Value::String(s), None) => s.clone(),
            other => panic!("cannot read the operand {other:?}"),
        }
    }

    /// A condition expression, as CloudFormation evaluates it.
    fn holds(&self, v: &Value) -> bool {
        let list = |tag| tagged(v, tag).and_then(Value::as_sequence);
        if let Some(pair) = list("!Equals") {
            return self.operand(&pair[0]) == self.operand(&pair[1]);
        }
        if let Some(one) = list("!Not") {
            return !self.holds(&one[0]);
        }
        if let Some(all) = list("!And") {
            return all.iter().all(|c| self.holds(c));
        }
        if let Some(any) = list("!Or") {
            return any.iter().any(|c| self.holds(c));
        }
        if let Some(name) = tagged(v, "!Condition") {
            return self.condition(name.as_str().unwrap());
        }
        panic!("cannot evaluate the condition {v:?}")
    }

    fn condition(&self, name: &str) -> bool {
        self.holds(&self.template["Conditions"][name])
    }

    /// The resources this deploy makes: those without a condition, and those whose condition
    /// holds.
    fn resources(&self) -> BTreeSet<String> {
        (self.template["Resources"].as_mapping().unwrap().iter())
            .filter(|(_, r)| r["Condition"].as_str().is_none_or(|c| self.condition(c)))
            .map(|(id, _)| id.as_str().unwrap().to_string())
            .collect()
    }
}

fn deploy<'a>(template: &'a Value, given: &[(&'static str, &'static str)]) -> Deploy<'a> {
    Deploy {
        template,
        given: given.iter().copied().collect(),
    }
}

const ACL_ARN: &str = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/verify-edge/1a2b";

/// The edge's resources, by the deploys that make them: none by default (so the default stack's
/// behaviour and cost are unchanged), all of them with EdgeProtection cloudfront in us-east-1,
/// and all but the web ACL (infra/edge-waf.yaml's instead) in another region.
#[test]
fn the_edge_exists_only_with_edge_protection_and_its_web_acl_only_in_us_east_1() {
    let t = template();
    let off = deploy(&t, &[("AWS::Region", "us-east-1")]);
    assert_eq!(off.value("EdgeProtection"), "none", "off by default");
    let on = deploy(
        &t,
        &[
            ("AWS::Region", "us-east-1"),
            ("EdgeProtection", "cloudfront"),
        ],
    );
    let elsewhere = deploy(
        &t,
        &[
            ("AWS::Region", "eu-west-1"),
            ("EdgeProtection", "cloudfront"),
            ("EdgeWebAclArn", ACL_ARN),
        ],
    );
    let added = |d: &Deploy| -> BTreeSet<String> {
        d.resources()
            .difference(&off.resources())
            .cloned()
            .collect()
    };
    let edge: BTreeSet<String> = [
        "EdgeOriginSecret",
        "EdgeOriginSecretPolicy",
        "EdgeWebAcl",
        "EdgeViewerHostFunction",
        "EdgeDistribution",
    ]
    .map(String::from)
    .into();
    assert_eq!(added(&on), edge);
    let mut without_acl = edge.clone();
    without_acl.remove("EdgeWebAcl");
    assert_eq!(added(&elsewhere), without_acl);
    assert!(on.resources().is_superset(&off.resources()));
    // Off, no CloudFront, WAF or origin-secret resource exists, and the functions get no
    // ORIGIN_SECRET_ARN (their check is off).
    for id in off.resources() {
        let kind = t["Resources"][id.as_str()]["Type"].as_str().unwrap();
        assert!(
            !kind.starts_with("AWS::CloudFront::") && !kind.starts_with("AWS::WAFv2::"),
            "{id}"
        );
        assert!(!id.starts_with("Edge"), "{id}");
    }
    let variable = &t["Globals"]["Function"]["Environment"]["Variables"]["ORIGIN_SECRET_ARN"];
    let branches = tagged(variable, "!If")
        .and_then(Value::as_sequence)
        .unwrap();
    assert_eq!(branches[0], "EdgeProtected");
    assert_eq!(tagged(&branches[1], "!Ref").unwrap(), "EdgeOriginSecret");
    assert_eq!(tagged(&branches[2], "!Ref").unwrap(), "AWS::NoValue");
    // Outside us-east-1 the web ACL must be given: the rule refuses the deploy without it.
    let rule = &t["Rules"]["EdgeNeedsUsEast1WebAcl"];
    let outside = deploy(
        &t,
        &[
            ("AWS::Region", "eu-west-1"),
            ("EdgeProtection", "cloudfront"),
        ],
    );
    assert!(outside.holds(&rule["RuleCondition"]));
    assert!(!on.holds(&rule["RuleCondition"]));
    assert!(!outside.holds(&rule["Assertions"][0]["Assert"]));
    assert!(elsewhere.holds(&rule["Assertions"][0]["Assert"]));
    // The outputs that name the edge exist with it only.
    for output in ["EdgeDomainName", "EdgeWebAclArn"] {
        assert_eq!(
            t["Outputs"][output]["Condition"], "EdgeProtected",
            "{output}"
        );
    }
}

/// Every statement that names the origin secret: only the edge's one policy, and only for the
/// HTTP functions. Off, that policy does not exist, so no role reads the secret.
#[test]
fn every_http_function_may_read_the_origin_secret_and_no_other_role() {
    let t = template();
    let resources = t["Resources"].as_mapping().unwrap();
    let http_roles: BTreeSet<String> = (resources.iter())
        .filter(|(_, r)| r["Type"] == "AWS::Serverless::Function")
        .filter(|(_, r)| {
            (r["Properties"]["Events"].as_mapping().into_iter().flatten())
                .any(|(_, e)| e["Type"] == "HttpApi")
        })
        .map(|(id, r)| {
            assert!(
                r["Properties"]["Role"].is_null(),
                "{id:?}: SAM makes its role"
            );
            format!("{}Role", id.as_str().unwrap())
        })
        .collect();
    assert_eq!(http_roles.len(), 17);
    let policy = &t["Resources"]["EdgeOriginSecretPolicy"];
    assert_eq!(policy["Type"], "AWS::IAM::Policy");
    assert_eq!(policy["Condition"], "EdgeProtected");
    let roles: BTreeSet<String> = (policy["Properties"]["Roles"].as_sequence().unwrap().iter())
        .map(|r| tagged(r, "!Ref").unwrap().as_str().unwrap().to_string())
        .collect();
    assert_eq!(roles, http_roles);
    let statements = policy["Properties"]["PolicyDocument"]["Statement"]
        .as_sequence()
        .unwrap();
    assert_eq!(statements.len(), 1);
    assert_eq!(statements[0]["Effect"], "Allow");
    assert_eq!(statements[0]["Action"], "secretsmanager:GetSecretValue");
    assert_eq!(
        tagged(&statements[0]["Resource"], "!Ref").unwrap(),
        "EdgeOriginSecret"
    );
    // Nothing else names the secret but CloudFront's header and the functions' variable.
    for (id, resource) in resources {
        let id = id.as_str().unwrap();
        if [
            "EdgeOriginSecretPolicy",
            "EdgeDistribution",
            "EdgeOriginSecret",
        ]
        .contains(&id)
        {
            continue;
        }
        assert!(
            !written(resource).contains("EdgeOriginSecret"),
            "{id} names the origin secret"
        );
    }
    let off = deploy(&t, &[("AWS::Region", "us-east-1")]);
    assert!(!off.resources().contains("EdgeOriginSecretPolicy"));
    // No function overrides the variable the HTTP functions' check reads.
    for (id, resource) in resources {
        let variables = &resource["Properties"]["Environment"]["Variables"];
        assert!(variables["ORIGIN_SECRET_ARN"].is_null(), "{id:?}");
    }
}

/// Each HTTP function's `main.rs` builds the origin check at cold start and hands it to
/// `service::http::serve`, the one entry that checks before any handler runs.
#[test]
fn every_http_function_runs_its_handler_behind_the_origin_check() {
    use service::routes::{Function, Trigger};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../functions");
    let http: Vec<Function> = (Function::ALL.into_iter())
        .filter(|f| matches!(f.trigger(), Trigger::Http(_)))
        .collect();
    assert_eq!(http.len(), 17);
    for function in http {
        let main = std::fs::read_to_string(root.join(function.name()).join("src/main.rs")).unwrap();
        assert!(
            main.contains("adapters::wiring::origin_check_from_env(&sdk).await?"),
            "{function}: reads the origin secret at cold start"
        );
        assert!(
            main.contains("service::http::serve(req, origin,"),
            "{function}: serves behind the origin check"
        );
    }
}

/// The web ACL: a rate-based rule per client IP, the parameter's limit, answered 429 in the
/// error envelope, and two managed rule groups that read no body; attached to the distribution,
/// and the same in infra/edge-waf.yaml.
#[test]
fn the_web_acl_limits_each_client_ip_and_guards_the_distribution() {
    let t = template();
    let acl = &t["Resources"]["EdgeWebAcl"];
    assert_eq!(acl["Type"], "AWS::WAFv2::WebACL");
    assert_eq!(acl["Condition"], "MakesEdgeWebAcl");
    let props = &acl["Properties"];
    assert_eq!(props["Scope"], "CLOUDFRONT");
    assert!(!props["DefaultAction"]["Allow"].is_null());
    let rules = props["Rules"].as_sequence().unwrap();
    let rate = &rules[0];
    assert_eq!(rate["Priority"], 0, "counted before any other rule");
    let statement = &rate["Statement"]["RateBasedStatement"];
    assert_eq!(statement["AggregateKeyType"], "IP");
    assert_eq!(
        tagged(&statement["Limit"], "!Ref").unwrap(),
        "EdgeRateLimitPerIp"
    );
    assert_eq!(statement["EvaluationWindowSec"], 300);
    let block = &rate["Action"]["Block"]["CustomResponse"];
    assert_eq!(block["ResponseCode"], 429);
    let key = block["CustomResponseBodyKey"].as_str().unwrap();
    let body = &props["CustomResponseBodies"][key];
    assert_eq!(body["ContentType"], "APPLICATION_JSON");
    let envelope: serde_json::Value =
        serde_json::from_str(body["Content"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["success"], false);
    assert_eq!(envelope["code"], "rate_limit_exceeded");
    let parameter = &t["Parameters"]["EdgeRateLimitPerIp"];
    assert_eq!(parameter["Default"], 2000);
    assert!(
        parameter["Description"]
            .as_str()
            .unwrap()
            .contains("5 minutes")
    );
    let groups: Vec<&str> = (rules.iter())
        .filter_map(|r| r["Statement"]["ManagedRuleGroupStatement"]["Name"].as_str())
        .collect();
    assert_eq!(
        groups,
        [
            "AWSManagedRulesAmazonIpReputationList",
            "AWSManagedRulesKnownBadInputsRuleSet"
        ],
        "no group that caps or reads bodies (the common rule set blocks bodies over 8 KB)"
    );
    // Attached: made here, or the companion's by its ARN.
    let web_acl =
        &t["Resources"]["EdgeDistribution"]["Properties"]["DistributionConfig"]["WebACLId"];
    let branches = tagged(web_acl, "!If").and_then(Value::as_sequence).unwrap();
    assert_eq!(branches[0], "MakesEdgeWebAcl");
    assert_eq!(tagged(&branches[1], "!GetAtt").unwrap(), "EdgeWebAcl.Arn");
    assert_eq!(tagged(&branches[2], "!Ref").unwrap(), "EdgeWebAclArn");
    // infra/edge-waf.yaml makes the very same web ACL, with the same parameter.
    let other = companion();
    assert_eq!(other["Resources"]["EdgeWebAcl"]["Properties"], *props);
    assert_eq!(other["Parameters"]["EdgeRateLimitPerIp"]["Default"], 2000);
    assert_eq!(
        tagged(&other["Outputs"]["WebAclArn"]["Value"], "!GetAtt").unwrap(),
        "EdgeWebAcl.Arn"
    );
    assert_eq!(other["Resources"].as_mapping().unwrap().len(), 1);
}

/// The distribution: the HTTP API as its one origin over TLS 1.2, every method, nothing cached,
/// every viewer header but Host forwarded, the origin secret in the header the functions check,
/// and the viewer's Host passed on for the links.
#[test]
fn the_distribution_forwards_everything_uncached_with_the_origin_secret() {
    let t = template();
    let config = &t["Resources"]["EdgeDistribution"]["Properties"]["DistributionConfig"];
    let origins = config["Origins"].as_sequence().unwrap();
    assert_eq!(origins.len(), 1);
    let origin = &origins[0];
    assert_eq!(
        tagged(&origin["DomainName"], "!Sub").unwrap(),
        "${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
    );
    let custom = &origin["CustomOriginConfig"];
    assert_eq!(custom["OriginProtocolPolicy"], "https-only");
    assert_eq!(strings(&custom["OriginSSLProtocols"]), ["TLSv1.2"]);
    let headers = origin["OriginCustomHeaders"].as_sequence().unwrap();
    assert_eq!(headers.len(), 1);
    assert!(
        headers[0]["HeaderName"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case(ORIGIN_HEADER)
    );
    assert_eq!(
        tagged(&headers[0]["HeaderValue"], "!Sub").unwrap(),
        "{{resolve:secretsmanager:${EdgeOriginSecret}:SecretString}}"
    );
    let behavior = &config["DefaultCacheBehavior"];
    assert_eq!(behavior["TargetOriginId"], origin["Id"]);
    assert_eq!(behavior["ViewerProtocolPolicy"], "https-only");
    let methods: BTreeSet<String> = strings(&behavior["AllowedMethods"]).into_iter().collect();
    let all: BTreeSet<String> = ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]
        .map(String::from)
        .into();
    assert_eq!(methods, all);
    // Managed-CachingDisabled and Managed-AllViewerExceptHostHeader (AWS's fixed ids).
    assert_eq!(
        behavior["CachePolicyId"],
        "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
    );
    assert_eq!(
        behavior["OriginRequestPolicyId"],
        "b689b0a8-53d0-40ab-baf2-68738e2966ac"
    );
    assert!(
        behavior["ForwardedValues"].is_null(),
        "policies, not legacy settings"
    );
    let association = &behavior["FunctionAssociations"][0];
    assert_eq!(association["EventType"], "viewer-request");
    assert_eq!(
        tagged(&association["FunctionARN"], "!GetAtt").unwrap(),
        "EdgeViewerHostFunction.FunctionMetadata.FunctionARN"
    );
    let code = t["Resources"]["EdgeViewerHostFunction"]["Properties"]["FunctionCode"]
        .as_str()
        .unwrap();
    assert!(
        code.contains(&format!(
            "request.headers['{VIEWER_HOST_HEADER}'] = {{ value: request.headers.host.value }}"
        )),
        "{code}"
    );
}

/// With the edge on, the URLs the service hands out name the distribution: the senders' tenant
/// links and Plaid's webhook (`PUBLIC_BASE_URL` of publish-events, send-reminders and
/// retry-events), and the stack's API and tenant page outputs, unless `PublicBaseUrl` is set.
/// The HTTP functions build theirs from the viewer's Host the origin check restores.
#[test]
fn the_urls_handed_out_name_the_distribution_with_edge_protection() {
    let t = template();
    let distribution = "https://${EdgeDistribution.DomainName}";
    let execute_api = "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}";
    let edge_or_api = |v: &Value| {
        let branches = tagged(v, "!If").and_then(Value::as_sequence).unwrap();
        assert_eq!(branches[0], "EdgeProtected");
        assert_eq!(tagged(&branches[1], "!Sub").unwrap(), distribution);
        assert_eq!(tagged(&branches[2], "!Sub").unwrap(), execute_api);
    };
    let public_or = |v: &Value| {
        let branches = tagged(v, "!If").and_then(Value::as_sequence).unwrap();
        assert_eq!(branches[0], "HasPublicBaseUrl");
        assert_eq!(tagged(&branches[1], "!Ref").unwrap(), "PublicBaseUrl");
        edge_or_api(&branches[2]);
    };
    for sender in [
        "PublishEventsFunction",
        "SendRemindersFunction",
        "RetryEventsFunction",
    ] {
        public_or(
            &t["Resources"][sender]["Properties"]["Environment"]["Variables"]["PUBLIC_BASE_URL"],
        );
    }
    public_or(&t["Outputs"]["TenantPageBaseUrl"]["Value"]);
    edge_or_api(&t["Outputs"]["ApiUrl"]["Value"]);
    // No other URL of the execute-api domain is handed out.
    assert_eq!(written(&t).matches(execute_api).count(), 5);
}
