//! The price of a verification: what the proxy counted during end-to-end runs (DynamoDB units
//! from the `ConsumedCapacity` every call asks for, SES, SQS, SNS requests) plus the API Gateway
//! requests, Lambda invocations and billed GB-seconds the driver counted, priced at the dated
//! us-east-1 list prices below. The arithmetic is here, unit-tested; `flow` does the counting.

use devstack::proxy::Call;

/// us-east-1 list prices (on-demand / pay-per-request, no free tier), in US dollars.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prices {
    /// When and where they were read.
    pub(crate) as_of: &'static str,
    pub(crate) source: &'static str,
    /// DynamoDB on-demand, per million write / read request units (Standard table class).
    pub(crate) dynamodb_write_per_million: f64,
    pub(crate) dynamodb_read_per_million: f64,
    /// SES outbound e-mail, per 1,000 messages.
    pub(crate) ses_per_thousand: f64,
    /// SQS standard queue, per million requests (64 KB chunks).
    pub(crate) sqs_per_million: f64,
    /// SNS publish, per million requests (SMS delivery is priced per message and country, not here).
    pub(crate) sns_per_million: f64,
    /// API Gateway HTTP API, per million requests (first 300 million a month).
    pub(crate) api_gateway_per_million: f64,
    /// Lambda, per million requests and per GB-second (x86_64, first 6 billion GB-s a month).
    pub(crate) lambda_per_million: f64,
    pub(crate) lambda_per_gb_second: f64,
}

pub(crate) const US_EAST_1: Prices = Prices {
    as_of: "2026-11-22",
    source: "aws.amazon.com pricing pages of DynamoDB (on-demand, after the November 2024 cut), SES, SQS, SNS, API Gateway and Lambda, us-east-1, as quoted by public pricing summaries on that date",
    dynamodb_write_per_million: 0.625,
    dynamodb_read_per_million: 0.125,
    ses_per_thousand: 0.10,
    sqs_per_million: 0.40,
    sns_per_million: 0.50,
    api_gateway_per_million: 1.00,
    lambda_per_million: 0.20,
    lambda_per_gb_second: 0.000_016_666_7,
};

/// What a run used.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Usage {
    pub(crate) read_units: f64,
    pub(crate) write_units: f64,
    pub(crate) emails: u64,
    pub(crate) sqs_requests: u64,
    pub(crate) sns_requests: u64,
    pub(crate) api_requests: u64,
    pub(crate) lambda_invocations: u64,
    /// Billed: each invocation's duration rounded up to the millisecond, times its memory.
    pub(crate) lambda_gb_seconds: f64,
}

/// Billed GB-seconds of one invocation: duration rounded up to 1 ms, at `memory_mb`.
pub(crate) fn billed_gb_seconds(duration: std::time::Duration, memory_mb: u32) -> f64 {
    let ms = duration.as_nanos().div_ceil(1_000_000).max(1) as f64;
    ms / 1000.0 * f64::from(memory_mb) / 1024.0
}

/// Read and write units of one DynamoDB call. The reported `ConsumedCapacity` counts when it is
/// there; moto reports flat units (and none for transactions), so the floor of the real price
/// applies: a transaction item costs 2 units, a strongly consistent read of up to 4 KB 1, an
/// eventually consistent one (queries on an index) 0.5, a write of up to 1 KB 1 — a refused
/// conditional write is charged too.
pub(crate) fn dynamodb_units(call: &Call) -> (f64, f64) {
    let reported = call.consumed.unwrap_or(0.0);
    let read_floor = if call.consistent { 1.0 } else { 0.5 };
    match call.short() {
        "TransactWriteItems" => (0.0, reported.max(2.0 * call.items.max(1) as f64)),
        "TransactGetItems" => (reported.max(2.0 * call.items.max(1) as f64), 0.0),
        "PutItem" | "UpdateItem" | "DeleteItem" => (0.0, reported.max(1.0)),
        "BatchWriteItem" => (0.0, reported.max(call.items.max(1) as f64)),
        "GetItem" | "Query" | "Scan" => (reported.max(read_floor), 0.0),
        "BatchGetItem" => (reported.max(read_floor * call.items.max(1) as f64), 0.0),
        // DescribeTable and the like are not billed per request.
        _ => (0.0, 0.0),
    }
}

impl Usage {
    /// Adds what the proxy saw: DynamoDB units, SES e-mails, SQS and SNS requests. Stream reads
    /// (`DynamoDBStreams_*`) are free when Lambda reads them and are not counted.
    pub(crate) fn add_calls(&mut self, calls: &[Call]) {
        for call in calls {
            match call.service.as_str() {
                "dynamodb" if call.is_dynamodb() => {
                    let (r, w) = dynamodb_units(call);
                    self.read_units += r;
                    self.write_units += w;
                }
                "ses" if call.operation.contains("outbound-emails") => self.emails += 1,
                "sqs" => self.sqs_requests += 1,
                "sns" => self.sns_requests += 1,
                _ => {}
            }
        }
    }

    /// One invocation behind API Gateway.
    pub(crate) fn add_api_request(&mut self, duration: std::time::Duration, memory_mb: u32) {
        self.api_requests += 1;
        self.add_invocation(duration, memory_mb);
    }

    /// One Lambda invocation (an event source's batch, or an API request's function).
    pub(crate) fn add_invocation(&mut self, duration: std::time::Duration, memory_mb: u32) {
        self.lambda_invocations += 1;
        self.lambda_gb_seconds += billed_gb_seconds(duration, memory_mb);
    }

    /// The usage of `runs` runs, scaled to `to` runs.
    pub(crate) fn scaled(&self, runs: usize, to: usize) -> Usage {
        let f = to as f64 / runs.max(1) as f64;
        let n = |v: u64| (v as f64 * f).round() as u64;
        Usage {
            read_units: self.read_units * f,
            write_units: self.write_units * f,
            emails: n(self.emails),
            sqs_requests: n(self.sqs_requests),
            sns_requests: n(self.sns_requests),
            api_requests: n(self.api_requests),
            lambda_invocations: n(self.lambda_invocations),
            lambda_gb_seconds: self.lambda_gb_seconds * f,
        }
    }
}

/// One line of the bill.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub(crate) item: &'static str,
    pub(crate) quantity: String,
    pub(crate) usd: f64,
}

/// The bill of `usage`, by service, largest first.
pub(crate) fn bill(usage: &Usage, p: &Prices) -> Vec<Line> {
    let per_million = |n: f64, price: f64| n / 1e6 * price;
    let mut lines = vec![
        Line {
            item: "DynamoDB writes",
            quantity: format!("{:.1} WRU", usage.write_units),
            usd: per_million(usage.write_units, p.dynamodb_write_per_million),
        },
        Line {
            item: "DynamoDB reads",
            quantity: format!("{:.1} RRU", usage.read_units),
            usd: per_million(usage.read_units, p.dynamodb_read_per_million),
        },
        Line {
            item: "SES e-mails",
            quantity: format!("{} e-mails", usage.emails),
            usd: usage.emails as f64 / 1000.0 * p.ses_per_thousand,
        },
        Line {
            item: "SQS requests",
            quantity: format!("{} requests", usage.sqs_requests),
            usd: per_million(usage.sqs_requests as f64, p.sqs_per_million),
        },
        Line {
            item: "SNS requests",
            quantity: format!("{} requests", usage.sns_requests),
            usd: per_million(usage.sns_requests as f64, p.sns_per_million),
        },
        Line {
            item: "API Gateway requests",
            quantity: format!("{} requests", usage.api_requests),
            usd: per_million(usage.api_requests as f64, p.api_gateway_per_million),
        },
        Line {
            item: "Lambda requests",
            quantity: format!("{} invocations", usage.lambda_invocations),
            usd: per_million(usage.lambda_invocations as f64, p.lambda_per_million),
        },
        Line {
            item: "Lambda compute",
            quantity: format!("{:.2} GB-s", usage.lambda_gb_seconds),
            usd: usage.lambda_gb_seconds * p.lambda_per_gb_second,
        },
    ];
    lines.sort_by(|a, b| b.usd.total_cmp(&a.usd));
    lines
}

pub(crate) fn total(lines: &[Line]) -> f64 {
    lines.iter().map(|l| l.usd).sum()
}

/// What the flows measured, for the report: the usage of `runs` verifications end to end, the
/// webhooks the receiver saw, and the functions' memory.
pub(crate) struct Measured<'a> {
    pub(crate) usage: &'a Usage,
    pub(crate) runs: usize,
    pub(crate) webhooks: usize,
    pub(crate) memory_mb: u32,
}

/// The report's section: the bill of 1,000 verifications, its largest item, and the prices used.
pub(crate) fn section(run: Measured<'_>, prices: &Prices) -> String {
    use std::fmt::Write as _;
    let thousand = run.usage.scaled(run.runs, 1000);
    let lines = bill(&thousand, prices);
    let sum = total(&lines);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## The price of a verification\n\n{} verifications run end to end through the local stack (create with a \
         webhook, the tenant e-mail, three status reads, tenant open, consent and connect, two \
         webhooks delivered ({} seen by the receiver), one list page), counted by the proxy and \
         the driver, scaled to 1,000 and priced at the us-east-1 list prices below (no free tier).\n",
        run.runs, run.webhooks
    );
    let _ = writeln!(
        out,
        "| item | per 1,000 verifications | USD per 1,000 | share |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|");
    for l in &lines {
        let share = if sum > 0.0 { l.usd / sum * 100.0 } else { 0.0 };
        let _ = writeln!(
            out,
            "| {} | {} | {:.4} | {share:.1} % |",
            l.item, l.quantity, l.usd
        );
    }
    let _ = writeln!(out, "| **total** | | **{sum:.4}** | 100 % |\n");
    if let Some(largest) = lines.first() {
        let _ = writeln!(
            out,
            "Largest item: **{}** ({:.1} % of {:.4} USD per 1,000 verifications, {:.6} USD per verification).\n",
            largest.item,
            if sum > 0.0 {
                largest.usd / sum * 100.0
            } else {
                0.0
            },
            sum,
            sum / 1000.0
        );
    }
    let _ = writeln!(
        out,
        "DynamoDB units are the `ConsumedCapacity` each call reported (every call asks for \
         `TOTAL`), floored at the real unit price because moto reports flat units and none for \
         transactions: 2 units per transaction item, 1 per strongly consistent read or write of \
         an item up to 1 KB (4 KB read), 0.5 per index query; refused conditional writes count. \
         Not included: index write amplification (each write of a verification item also writes \
         its GSI entries), storage, CloudWatch Logs, data transfer, and the event source mappings' \
         empty polls. Lambda compute is each invocation's measured time here, rounded up to the \
         millisecond, at {} MB (template.yaml).\n",
        run.memory_mb
    );
    let _ = writeln!(out, "Prices ({}; {}):\n", prices.as_of, prices.source);
    let _ = writeln!(out, "| price | USD |\n|---|---:|");
    for (what, usd) in [
        (
            "DynamoDB on-demand, per million write request units",
            prices.dynamodb_write_per_million,
        ),
        (
            "DynamoDB on-demand, per million read request units",
            prices.dynamodb_read_per_million,
        ),
        ("SES, per 1,000 e-mails", prices.ses_per_thousand),
        ("SQS standard, per million requests", prices.sqs_per_million),
        ("SNS publish, per million requests", prices.sns_per_million),
        (
            "API Gateway HTTP API, per million requests",
            prices.api_gateway_per_million,
        ),
        ("Lambda, per million requests", prices.lambda_per_million),
        ("Lambda x86_64, per GB-second", prices.lambda_per_gb_second),
    ] {
        let _ = writeln!(out, "| {what} | {usd} |");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn call(operation: &str, service: &str, consumed: Option<f64>, items: usize) -> Call {
        Call {
            consumed,
            items,
            consistent: true,
            ..Call::answered(operation, service, b"")
        }
    }

    #[test]
    fn transactions_cost_two_units_per_item_and_reads_their_consistency() {
        let tx = call("DynamoDB_20120810.TransactWriteItems", "dynamodb", None, 4);
        assert_eq!(dynamodb_units(&tx), (0.0, 8.0));
        // A reported figure above the floor counts (a large item).
        let big = call("DynamoDB_20120810.PutItem", "dynamodb", Some(3.0), 0);
        assert_eq!(dynamodb_units(&big), (0.0, 3.0));
        // moto's 0.5 for a strongly consistent GetItem is below the real price of 1.
        let get = call("DynamoDB_20120810.GetItem", "dynamodb", Some(0.5), 0);
        assert_eq!(dynamodb_units(&get), (1.0, 0.0));
        let mut query = call("DynamoDB_20120810.Query", "dynamodb", None, 0);
        query.consistent = false;
        assert_eq!(dynamodb_units(&query), (0.5, 0.0));
        let describe = call("DynamoDB_20120810.DescribeTable", "dynamodb", None, 0);
        assert_eq!(dynamodb_units(&describe), (0.0, 0.0));
    }

    #[test]
    fn calls_are_priced_by_service_and_stream_reads_are_free() {
        let calls = vec![
            call("DynamoDB_20120810.TransactWriteItems", "dynamodb", None, 3),
            call("DynamoDB_20120810.GetItem", "dynamodb", Some(1.0), 0),
            call("DynamoDBStreams_20120810.GetRecords", "dynamodb", None, 0),
            call("POST /v2/email/outbound-emails", "ses", None, 0),
            call("AmazonSQS.SendMessage", "sqs", None, 0),
            call("AmazonSQS.DeleteMessage", "sqs", None, 0),
            call("POST /", "sns", None, 0),
        ];
        let mut usage = Usage::default();
        usage.add_calls(&calls);
        usage.add_api_request(Duration::from_micros(2_500), 128);
        usage.add_invocation(Duration::from_millis(1000), 1024);
        assert_eq!((usage.read_units, usage.write_units), (1.0, 6.0));
        assert_eq!(
            (usage.emails, usage.sqs_requests, usage.sns_requests),
            (1, 2, 1)
        );
        assert_eq!((usage.api_requests, usage.lambda_invocations), (1, 2));
        // 2.5 ms bills as 3 ms at 128 MB, plus 1 s at 1 GB.
        assert!((usage.lambda_gb_seconds - (0.003 / 8.0 + 1.0)).abs() < 1e-12);

        let thousand = usage.scaled(1, 1000);
        let lines = bill(&thousand, &US_EAST_1);
        let usd = |item: &str| lines.iter().find(|l| l.item == item).unwrap().usd;
        assert!((usd("DynamoDB writes") - 6000.0 / 1e6 * 0.625).abs() < 1e-12);
        assert!((usd("DynamoDB reads") - 1000.0 / 1e6 * 0.125).abs() < 1e-12);
        assert!((usd("SES e-mails") - 0.10).abs() < 1e-12);
        assert!((usd("SQS requests") - 2000.0 / 1e6 * 0.40).abs() < 1e-12);
        assert!((usd("SNS requests") - 1000.0 / 1e6 * 0.50).abs() < 1e-12);
        assert!((usd("API Gateway requests") - 0.001).abs() < 1e-12);
        assert!((usd("Lambda requests") - 2000.0 / 1e6 * 0.20).abs() < 1e-12);
        let gb_s = 1000.0 * (0.003 / 8.0 + 1.0);
        assert!((usd("Lambda compute") - gb_s * 0.000_016_666_7).abs() < 1e-12);
        // Largest first, and the total is the sum.
        assert_eq!(lines[0].item, "SES e-mails");
        assert!(lines.windows(2).all(|w| w[0].usd >= w[1].usd));
        let sum: f64 = lines.iter().map(|l| l.usd).sum();
        assert!((total(&lines) - sum).abs() < 1e-15);
    }

    #[test]
    fn billing_rounds_each_invocation_up_to_the_millisecond() {
        assert_eq!(billed_gb_seconds(Duration::from_nanos(1), 1024), 0.001);
        assert_eq!(
            billed_gb_seconds(Duration::from_millis(10), 128),
            0.01 / 8.0
        );
        assert_eq!(
            billed_gb_seconds(Duration::from_micros(10_001), 128),
            0.011 / 8.0
        );
    }
}
