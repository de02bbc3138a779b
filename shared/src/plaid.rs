//! Plaid Bank Income adapter of the `IncomeProvider` port (written next).
