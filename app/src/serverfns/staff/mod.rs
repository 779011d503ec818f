//! Staff: signing in and out, the kiosk lock, PINs, accounts, API tokens, the audit log.

mod api_tokens;
mod audit_log;
mod create_api_token;
mod revoke_api_token;
mod staff_accounts;
mod staff_add;
mod staff_change_password;
mod staff_disable;
mod staff_lock;
mod staff_me;
mod staff_reset_pin;
mod staff_set_pin;
mod staff_sign_in;
mod staff_sign_out;
mod staff_unlock;
mod staff_whoami;

pub use api_tokens::*;
pub use audit_log::*;
pub use create_api_token::*;
pub use revoke_api_token::*;
pub use staff_accounts::*;
pub use staff_add::*;
pub use staff_change_password::*;
pub use staff_disable::*;
pub use staff_lock::*;
pub use staff_me::*;
pub use staff_reset_pin::*;
pub use staff_set_pin::*;
pub use staff_sign_in::*;
pub use staff_sign_out::*;
pub use staff_unlock::*;
pub use staff_whoami::*;
