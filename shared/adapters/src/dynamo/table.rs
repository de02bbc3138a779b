//! Table creation, for the local stack and the tests only: AWS gets the table from template.yaml
//! (and a test checks the two agree through `schema`).

use aws_sdk_dynamodb::Client;

use super::unavailable;
use ports::StoreError;
use service::table_schema as schema;

/// Creates the table as `schema` describes it (local stack and tests; AWS uses template.yaml).
pub async fn create_table(client: &Client, table: &str) -> Result<(), StoreError> {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType,
        TimeToLiveSpecification,
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .map_err(unavailable)
    };
    let mut request = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(key(schema::PK, KeyType::Hash)?)
        .key_schema(key(schema::SK, KeyType::Range)?)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .map_err(unavailable)?,
        );
    for name in schema::KEY_ATTRIBUTES {
        request = request.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(unavailable)?,
        );
    }
    for (index, pk, sk) in schema::GSIS {
        request = request.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(index)
                .key_schema(key(pk, KeyType::Hash)?)
                .key_schema(key(sk, KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .map_err(unavailable)?,
        );
    }
    request.send().await.map_err(unavailable)?;
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name(schema::TTL_ATTRIBUTE)
                .build()
                .map_err(unavailable)?,
        )
        .send()
        .await
        .map_err(unavailable)?;
    Ok(())
}
