//! What a browser does with the tenant page's upload form: read the signed form out of the page
//! and post one file to it as multipart/form-data (the service signs; S3 takes the file).

/// The upload form of a tenant page: its action URL and hidden fields, in order.
pub fn upload_form(html: &str) -> Option<(String, Vec<(String, String)>)> {
    let start = html.find(r#"enctype="multipart/form-data""#)?;
    let form_start = html[..start].rfind("<form")?;
    let tag_end = form_start + html[form_start..].find('>')?;
    let action = attribute(&html[form_start..tag_end], "action")?;
    let end = start + html[start..].find("</form>")?;
    let mut fields = vec![];
    let mut rest = &html[tag_end..end];
    while let Some(at) = rest.find(r#"<input type="hidden""#) {
        let close = at + rest[at..].find('>')?;
        let input = &rest[at..close];
        fields.push((attribute(input, "name")?, attribute(input, "value")?));
        rest = &rest[close..];
    }
    Some((action, fields))
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let marker = format!(r#"{name}=""#);
    let start = tag.find(&marker)? + marker.len();
    let end = start + tag[start..].find('"')?;
    Some(unescape(&tag[start..end]))
}

/// HTML or XML text with its entities resolved.
pub fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Posts `file` with the form's fields, as a browser does (the file last). Returns the status and
/// the `location` S3 answered with.
pub async fn post_file(
    action: &str,
    fields: &[(String, String)],
    file_name: &str,
    file: &[u8],
) -> (u16, Option<String>) {
    let boundary = format!("----tiv{}", uuid::Uuid::new_v4().simple());
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = client
        .post(action)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .send()
        .await
        .expect("the bucket answers");
    let location = resp
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .map(String::from);
    (resp.status().as_u16(), location)
}

#[test]
fn the_form_is_read_back_as_the_page_escaped_it() {
    let html = r#"<form method="post" action="http://127.0.0.1:9/b" enctype="multipart/form-data"><input type="hidden" name="key" value="uploads/v/d"><input type="hidden" name="success_action_redirect" value="http://x/t/a?b=1&amp;c=2"><input type="file" name="file"></form>"#;
    let (action, fields) = upload_form(html).unwrap();
    assert_eq!(action, "http://127.0.0.1:9/b");
    assert_eq!(
        fields,
        vec![
            ("key".to_string(), "uploads/v/d".to_string()),
            (
                "success_action_redirect".to_string(),
                "http://x/t/a?b=1&c=2".to_string()
            )
        ]
    );
}
