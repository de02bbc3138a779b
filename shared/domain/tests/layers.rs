//! The layers' direction, proved on the dependency graph Cargo resolves: the core and the ports
//! link no async runtime, no AWS SDK, no HTTP client and no Lambda crate; the test support links
//! nothing the core and ports don't; the service links no adapter (no AWS SDK, no HTTP client,
//! not the `adapters` crate). So a rule, a trait or a handler can never reach an outside system
//! but through a port.

use std::process::Command;

/// Crates whose names start with these are the outside world's (runtime, AWS, HTTP, Lambda).
const OUTSIDE: [&str; 9] = [
    "tokio",
    "aws-",
    "aws_",
    "reqwest",
    "hyper",
    "lambda_",
    "serde_dynamo",
    "http",
    "tracing-subscriber",
];

/// The packages `package` links in a normal build (no dev- or build-dependencies).
fn linked(package: &str) -> Vec<String> {
    tree(&["-p", package])
}

/// The package names `cargo tree` prints with these arguments, on normal edges only.
fn tree(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "--locked", "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

fn outside_crates(package: &str) -> Vec<String> {
    linked(package)
        .into_iter()
        .filter(|name| OUTSIDE.iter().any(|o| name.starts_with(o)))
        .collect()
}

#[test]
fn the_core_links_no_runtime_sdk_http_or_lambda_crate() {
    assert_eq!(outside_crates("domain"), Vec::<String>::new());
}

#[test]
fn the_ports_and_the_test_support_link_none_either() {
    assert_eq!(outside_crates("ports"), Vec::<String>::new());
    assert_eq!(outside_crates("test-support"), Vec::<String>::new());
    let names = linked("ports");
    assert!(names.contains(&"domain".to_string()), "{names:?}");
    assert!(!names.contains(&"service".to_string()), "{names:?}");
}

/// The crates only an adapter may link: the AWS SDK and its configuration, the HTTP client of
/// the providers and webhooks, and the adapters crate itself.
const ADAPTER: [&str; 5] = [
    "aws-sdk-",
    "aws-config",
    "aws-smithy",
    "reqwest",
    "adapters",
];

#[test]
fn the_service_links_no_adapter() {
    let adapters: Vec<String> = linked("service")
        .into_iter()
        .filter(|name| ADAPTER.iter().any(|a| name.starts_with(a)))
        .collect();
    assert_eq!(adapters, Vec::<String>::new());
}

#[test]
fn no_function_links_the_test_support() {
    // Everything that links it in a normal build: itself and the benchmark, nothing else.
    let users = tree(&["--workspace", "-i", "test-support"]);
    assert_eq!(users, ["bench", "test-support"]);
}

#[test]
fn the_checks_see_what_they_look_for() {
    // The adapters link the runtime, the SDKs and the service: if this failed, the checks above
    // could pass by reading nothing.
    let adapters = linked("adapters");
    for name in [
        "tokio",
        "aws-sdk-dynamodb",
        "reqwest",
        "service",
        "ports",
        "domain",
    ] {
        assert!(
            adapters.iter().any(|n| n == name),
            "{name} not in {adapters:?}"
        );
    }
}
