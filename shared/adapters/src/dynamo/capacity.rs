//! Every DynamoDB call of the adapter asks for `ReturnConsumedCapacity: TOTAL`, so what a request
//! costs is in its answer (the bench's proxy reads it to price a verification). One interceptor on
//! the adapter's client sets it on each operation's input, so no call site can forget it.

use aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::scan::ScanInput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

/// Sets `ReturnConsumedCapacity: TOTAL` on every item and query operation.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConsumedCapacityTotal;

/// Sets the field on the first input type that matches.
macro_rules! total_on {
    ($input:expr, $($ty:ty),+) => {
        $(
            if let Some(input) = $input.downcast_mut::<$ty>() {
                input.return_consumed_capacity = Some(ReturnConsumedCapacity::Total);
                return Ok(());
            }
        )+
    };
}

impl Intercept for ConsumedCapacityTotal {
    fn name(&self) -> &'static str {
        "ConsumedCapacityTotal"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let input = context.input_mut();
        total_on!(
            input,
            GetItemInput,
            PutItemInput,
            UpdateItemInput,
            DeleteItemInput,
            QueryInput,
            ScanInput,
            BatchGetItemInput,
            BatchWriteItemInput,
            TransactWriteItemsInput,
            TransactGetItemsInput
        );
        Ok(())
    }
}
