//! The tenant's secure link, `{base}/t/{verification_id}/{token}`: built for the create response
//! and the e-mail, parsed by the tenant page. One place, so the two ends cannot drift apart.

use uuid::Uuid;

/// Where tenant links start; the route of the tenant page.
const PREFIX: &str = "/t/";
/// Longer tokens are never minted; refusing them keeps a hostile path cheap.
const MAX_TOKEN_CHARS: usize = 128;

/// The link to the tenant page of a verification; `base` is the public origin (a trailing `/`
/// is ignored).
pub fn tenant_link(base: &str, id: Uuid, token: &str) -> String {
    format!("{}{PREFIX}{id}/{token}", base.trim_end_matches('/'))
}

/// The last segment of the tenant's copy of the report PDF: `/t/{verification_id}/{token}/report.pdf`.
pub const REPORT_PDF_SEGMENT: &str = "/report.pdf";
/// Where the sandbox's sample documents sit under the link: `.../samples/{sample}.pdf`.
pub const SAMPLES_SEGMENT: &str = "/samples/";

/// What a tenant path asks for under its link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantFile<'a> {
    /// The page itself.
    Page,
    /// The tenant's copy of the report PDF.
    ReportPdf,
    /// A sandbox sample document, by its name without `.pdf`.
    Sample(&'a str),
}

/// Splits a tenant path into the page link and what is asked for under it.
pub fn split_tenant_path(path: &str) -> (&str, TenantFile<'_>) {
    if let Some(link) = path.strip_suffix(REPORT_PDF_SEGMENT) {
        return (link, TenantFile::ReportPdf);
    }
    if let Some(rest) = path.strip_suffix(".pdf")
        && let Some((link, name)) = rest.rsplit_once(SAMPLES_SEGMENT)
        && !name.contains('/')
    {
        return (link, TenantFile::Sample(name));
    }
    (path, TenantFile::Page)
}

/// The verification id and token of a tenant page path, or None for anything else. Strict: one
/// UUID, one non-empty token of at most 128 characters, at most one trailing `/`.
pub fn parse_tenant_link(path: &str) -> Option<(Uuid, &str)> {
    let rest = path.strip_prefix(PREFIX)?;
    let (id, token) = rest.split_once('/')?;
    let token = token.trim_end_matches('/');
    if token.is_empty() || token.len() > MAX_TOKEN_CHARS || token.contains('/') {
        return None;
    }
    Some((Uuid::parse_str(id).ok()?, token))
}

/// The token lists after binding `new`: it joins the rotating set, whose oldest entries beyond
/// `keep` leave both lists. Tokens outside the rotating set are never dropped.
pub fn rotated(
    tokens: &[String],
    recent: &[String],
    new: &str,
    keep: usize,
) -> (Vec<String>, Vec<String>) {
    let mut recent = recent.to_vec();
    recent.push(new.to_string());
    let excess = recent.len().saturating_sub(keep.max(1));
    let dropped: Vec<String> = recent.drain(..excess).collect();
    let mut tokens: Vec<String> = tokens
        .iter()
        .filter(|h| !dropped.contains(h))
        .cloned()
        .collect();
    tokens.push(new.to_string());
    (tokens, recent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_parse_strictly() {
        let id = Uuid::new_v4();
        assert_eq!(
            parse_tenant_link(&format!("/t/{id}/abc")),
            Some((id, "abc"))
        );
        assert_eq!(parse_tenant_link(&format!("/t/{id}/")), None);
        assert_eq!(parse_tenant_link(&format!("/t/{id}/a/b")), None);
        assert_eq!(parse_tenant_link("/t/not-a-uuid/abc"), None);
        assert_eq!(parse_tenant_link("/x/abc"), None);
    }

    #[test]
    fn the_report_pdf_and_the_samples_sit_under_the_link() {
        let id = Uuid::new_v4();
        let path = format!("/t/{id}/tok/report.pdf");
        let (link, file) = split_tenant_path(&path);
        assert_eq!(file, TenantFile::ReportPdf);
        assert_eq!(parse_tenant_link(link), Some((id, "tok")));
        assert_eq!(
            split_tenant_path("/t/x/tok"),
            ("/t/x/tok", TenantFile::Page)
        );
        // A path that is only the segment names no link.
        assert_eq!(
            parse_tenant_link(split_tenant_path(&format!("/t/{id}/report.pdf")).0),
            None
        );
        let path = format!("/t/{id}/tok/samples/scan.pdf");
        let (link, file) = split_tenant_path(&path);
        assert_eq!(file, TenantFile::Sample("scan"));
        assert_eq!(parse_tenant_link(link), Some((id, "tok")));
        // Anything deeper names no sample, and its link does not parse.
        let path = format!("/t/{id}/tok/samples/a/b.pdf");
        let (link, file) = split_tenant_path(&path);
        assert_eq!(file, TenantFile::Page);
        assert_eq!(parse_tenant_link(link), None);
    }

    #[test]
    fn a_built_link_parses_back() {
        let id = Uuid::new_v4();
        let link = tenant_link("https://verify.example.com/", id, "tok");
        assert_eq!(link, format!("https://verify.example.com/t/{id}/tok"));
        let path = link.strip_prefix("https://verify.example.com").unwrap();
        assert_eq!(parse_tenant_link(path), Some((id, "tok")));
    }

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rotation_drops_only_the_oldest_replay_token() {
        // "first" (the create response) and "mail" (another fixed token) are not in the rotating
        // set.
        let (tokens, recent) = rotated(&v(&["first", "mail"]), &[], "r1", 2);
        assert_eq!((tokens, recent), (v(&["first", "mail", "r1"]), v(&["r1"])));
        let (tokens, recent) = rotated(&v(&["first", "r1", "mail"]), &v(&["r1"]), "r2", 2);
        assert_eq!(
            (tokens, recent),
            (v(&["first", "r1", "mail", "r2"]), v(&["r1", "r2"]))
        );
        let (tokens, recent) = rotated(
            &v(&["first", "r1", "mail", "r2"]),
            &v(&["r1", "r2"]),
            "r3",
            2,
        );
        assert_eq!(
            (tokens, recent),
            (v(&["first", "mail", "r2", "r3"]), v(&["r2", "r3"]))
        );
    }
}
