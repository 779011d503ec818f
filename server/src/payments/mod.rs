//! Payments: the gateway interface the server talks to (`gateway`), the signature on gateway
//! callbacks (`signature`), and the payment-gateway sandbox (`sandbox`, run as its own process
//! by the `payment-sandbox` binary), which speaks the same small API a real provider's adapter
//! would.

pub mod gateway;
pub mod sandbox;
pub mod signature;
