//! The local stack's two demo accounts: the landlord of the demo key, and another account that
//! proves nothing of one account reaches the other.

pub const DEMO_ACCOUNT: &str = "acct_demo";
pub const OTHER_ACCOUNT: &str = "acct_other";
