//! Documents end to end on moto: the tenant page's upload form, the browser's POST to the bucket,
//! the bucket's notification through the documents queue to analyze-document, and the report.

pub mod upload;
