//! The functions, their routes and their throttles: each built from its crate with its events,
//! the route table, the OpenAPI operations and the tenant page's own limits.

use super::*;

#[test]
fn every_function_is_built_from_its_crate_and_has_events() {
    let t = template();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut binaries = BTreeSet::new();
    for (_, res) in t["Resources"].as_mapping().unwrap() {
        if res["Type"] != "AWS::Serverless::Function" {
            continue;
        }
        assert_eq!(res["Metadata"]["BuildMethod"], "rust-cargolambda");
        assert_eq!(res["Properties"]["CodeUri"], ".");
        let binary = res["Metadata"]["BuildProperties"]["Binary"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            root.join("functions")
                .join(&binary)
                .join("Cargo.toml")
                .exists(),
            "functions/{binary}"
        );
        assert!(
            root.join("events").join(&binary).is_dir(),
            "events/{binary}"
        );
        binaries.insert(binary);
    }
    let crates: BTreeSet<String> = std::fs::read_dir(root.join("functions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name != "admin")
        .collect();
    assert_eq!(
        binaries, crates,
        "every Lambda crate is deployed, and nothing else"
    );
    assert_eq!(strings(&t["Globals"]["Function"]["Architectures"]).len(), 1);
}

/// The template deploys exactly the functions of `service::routes`, each with the HttpApi routes
/// (method and path) the table gives it, the trigger it names, and a folder of sample events.
#[test]
fn functions_and_routes_match_the_route_table() {
    use service::routes::{Function, Trigger};
    let t = template();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut deployed = BTreeSet::new();
    for (_, res) in t["Resources"].as_mapping().unwrap() {
        if res["Type"] != "AWS::Serverless::Function" {
            continue;
        }
        let binary = res["Metadata"]["BuildProperties"]["Binary"]
            .as_str()
            .unwrap();
        let function = Function::from_name(binary)
            .unwrap_or_else(|| panic!("{binary} is not in service::routes"));
        let mut routes = BTreeSet::new();
        let mut triggers = BTreeSet::new();
        // A function invoked only by schedules it does not own has no events.
        for (_, ev) in res["Properties"]["Events"]
            .as_mapping()
            .into_iter()
            .flatten()
        {
            let kind = ev["Type"].as_str().unwrap().to_string();
            if kind == "HttpApi" {
                routes.insert((
                    ev["Properties"]["Method"].as_str().unwrap().to_string(),
                    ev["Properties"]["Path"].as_str().unwrap().to_string(),
                ));
            }
            triggers.insert(kind);
        }
        let expected_trigger = match function.trigger() {
            Trigger::Http(_) => Some("HttpApi"),
            Trigger::DynamoDbStream => Some("DynamoDB"),
            Trigger::Sqs => Some("SQS"),
            // Invoked by the schedules publish-events creates: no event of its own.
            Trigger::Schedule => None,
        };
        assert_eq!(
            triggers,
            expected_trigger.into_iter().map(String::from).collect(),
            "{binary}"
        );
        let table: BTreeSet<(String, String)> = function
            .routes()
            .iter()
            .map(|r| (r.method.to_string(), r.path.to_string()))
            .collect();
        assert_eq!(routes, table, "{binary}: HttpApi events");
        assert!(deployed.insert(function), "{binary} deployed twice");
    }
    assert_eq!(
        deployed,
        BTreeSet::from(Function::ALL),
        "every function of the table is deployed"
    );
    let folders: BTreeSet<String> = std::fs::read_dir(root.join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    let names: BTreeSet<String> = Function::ALL.iter().map(|f| f.name().to_string()).collect();
    assert_eq!(folders, names, "events/ has one folder per function");
    // The public contract, spelled out once more so a table edit cannot drop it unnoticed.
    for (method, path) in [
        ("POST", "/api/v1/verify"),
        ("GET", "/api/v1/verify"),
        ("DELETE", "/api/v1/verify"),
        ("GET", "/api/v1/verifications"),
        ("GET", "/api/v1/usage"),
    ] {
        assert!(
            Function::ALL.iter().any(|f| f
                .routes()
                .iter()
                .any(|r| (r.method, r.path) == (method, path))),
            "{method} {path}"
        );
    }
}

/// Every operation of infra/openapi.yaml is a route of the table, so of the template (the test
/// above): a described path the stack does not deploy answers 404 on AWS. A path variable fills
/// a whole segment there, so the file's `{sample}.pdf` is the route's `{sample}`.
#[test]
fn every_operation_of_the_openapi_file_is_deployed() {
    use service::routes::Function;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let openapi: Value =
        serde_yaml::from_str(&std::fs::read_to_string(root.join("infra/openapi.yaml")).unwrap())
            .unwrap();
    let routes: BTreeSet<(String, String)> = Function::ALL
        .iter()
        .flat_map(|f| f.routes())
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    let mut missing = Vec::new();
    for (path, item) in openapi["paths"].as_mapping().unwrap() {
        let path = path.as_str().unwrap();
        let deployed: Vec<&str> = path
            .split('/')
            .map(|segment| match segment.find('}') {
                Some(end) if segment.starts_with('{') => &segment[..=end],
                _ => segment,
            })
            .collect();
        let deployed = deployed.join("/");
        for (method, _) in item.as_mapping().unwrap() {
            let method = method.as_str().unwrap();
            if !["get", "post", "put", "patch", "delete"].contains(&method) {
                continue;
            }
            let route = (method.to_uppercase(), deployed.clone());
            if !routes.contains(&route) {
                missing.push(format!("{} {path}", route.0));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "described but not deployed: {missing:?}"
    );
}

/// The tenant page's routes have throttling limits of their own (`RouteSettings`, from the
/// `TenantPage*` parameters), apart from the API's (`DefaultRouteSettings`, `Api*`): one flood of
/// anonymous page requests cannot give every landlord 429s.
#[test]
fn the_tenant_page_routes_are_throttled_apart_from_the_api() {
    use service::routes::Function;
    let t = template();
    let api = &t["Resources"]["HttpApi"]["Properties"];
    let refs = |settings: &Value| {
        ["ThrottlingBurstLimit", "ThrottlingRateLimit"].map(|k| match &settings[k] {
            Value::Tagged(tag) if tag.tag == "!Ref" => tag.value.as_str().unwrap().to_string(),
            other => panic!("{k} is not a parameter: {other:?}"),
        })
    };
    assert_eq!(
        refs(&api["DefaultRouteSettings"]),
        ["ApiThrottlingBurstLimit", "ApiThrottlingRateLimit"]
    );
    let settings = api["RouteSettings"].as_mapping().expect("RouteSettings");
    let keys: BTreeSet<String> = settings
        .keys()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    let tenant: BTreeSet<String> = (Function::TenantPortal.routes().iter())
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(
        keys, tenant,
        "RouteSettings name exactly the tenant page's routes"
    );
    for (key, route) in settings {
        assert_eq!(
            refs(route),
            [
                "TenantPageThrottlingBurstLimit",
                "TenantPageThrottlingRateLimit"
            ],
            "{key:?}"
        );
    }
    for parameter in [
        "TenantPageThrottlingBurstLimit",
        "TenantPageThrottlingRateLimit",
    ] {
        assert_eq!(t["Parameters"][parameter]["Type"], "Number", "{parameter}");
    }
}
