//! One module per Lambda function, named like the function, generic over the ports; `api` holds
//! what the five `/api/v1` handlers share.

pub mod api;
pub mod deliver_webhook;
pub mod expire_verifications;
pub mod publish_events;
pub mod retry_events;
pub mod tenant_portal;
