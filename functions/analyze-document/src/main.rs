//! SQS consumer of the documents bucket's notifications: analyses each upload, reporting only
//! the failed messages.

// The handler's future (S3, DynamoDB and a blocking analysis) is deep for the layout query.
#![recursion_limit = "256"]

use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{Error, LambdaEvent, run, service_fn};

fn main() -> Result<(), Error> {
    // This binary is also the analysis child (`adapters::analysis_child`): serve and exit.
    adapters::analysis_child::serve_if_child();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve())
}

async fn serve() -> Result<(), Error> {
    service::init_tracing();
    let config = service::config::AnalyzeDocumentConfig::from_env()?;
    let deps = adapters::wiring::analyze_document(config, &adapters::aws_config().await).await?;
    let deps = &deps;
    run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        Ok::<_, Error>(
            service::handlers::analyze_document::analyze_documents(deps, event.payload).await,
        )
    }))
    .await
}
