//! The layers' direction, proved on the dependency graph Cargo resolves: the core and the ports
//! link no async runtime, no AWS SDK, no HTTP client and no Lambda crate, and the test support
//! links nothing the core and ports don't, so a rule or a trait can never reach an outside system.

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
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}", "-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
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
    assert!(!names.contains(&"shared".to_string()), "{names:?}");
}

#[test]
fn the_check_sees_what_it_looks_for() {
    // The service links the runtime and the SDKs: if this failed, the checks above could pass
    // by reading nothing.
    let service = outside_crates("shared");
    assert!(service.iter().any(|n| n == "tokio"), "{service:?}");
    assert!(
        service.iter().any(|n| n.starts_with("aws-sdk-")),
        "{service:?}"
    );
}
