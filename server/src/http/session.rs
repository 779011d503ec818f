//! Guest identity: the first response gives the browser (or API client) a customer id in a
//! signed, HttpOnly cookie; holds belong to it. The signature is an HMAC-SHA256 of the id under
//! the server's session key, so a client cannot claim another customer's id.

use crate::config::Secret;
use app::domain::CustomerId;
use axum::extract::{Request, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::sync::Arc;
use uuid::Uuid;

pub const COOKIE_NAME: &str = "seats_session";

#[derive(Clone)]
pub struct SessionKey(Arc<Secret>, bool);

impl SessionKey {
    pub fn new(secret: Secret) -> Self {
        Self(Arc::new(secret), false)
    }

    /// Cookies marked `Secure` (the site is served over https).
    pub fn secure(mut self, secure: bool) -> Self {
        self.1 = secure;
        self
    }

    /// The key itself (other signing keys are derived from it).
    pub fn expose(&self) -> &[u8] {
        self.0.expose()
    }

    fn mac(&self, id: &Uuid) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(self.0.expose()).expect("HMAC takes any key length");
        mac.update(id.as_bytes());
        mac
    }

    /// The cookie value for `customer`: `<uuid>.<hex hmac>`.
    pub fn sign(&self, customer: CustomerId) -> String {
        let tag = self.mac(&customer.0).finalize().into_bytes();
        format!("{}.{}", customer.0, hex::encode(tag))
    }

    /// The customer a cookie value names, if its signature is ours.
    pub fn verify(&self, value: &str) -> Option<CustomerId> {
        let (id, tag) = value.split_once('.')?;
        let id = Uuid::try_parse(id).ok()?;
        let tag = hex::decode(tag).ok()?;
        self.mac(&id).verify_slice(&tag).ok()?;
        Some(CustomerId(id))
    }

    fn customer_in(&self, req: &Request) -> Option<CustomerId> {
        cookie(req, COOKIE_NAME).and_then(|value| self.verify(value))
    }
}

/// The value of the request's cookie `name` (the first, when it is sent more than once).
pub fn cookie<'r>(req: &'r Request, name: &str) -> Option<&'r str> {
    req.headers()
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Public reads that never need a customer and must stay cacheable (and the gateway's callbacks): a CDN will not cache a
/// response that sets a cookie, and signing one per anonymous read would waste CPU.
fn is_public_read(req: &Request) -> bool {
    let path = req.uri().path();
    // The gateway's callbacks act for no customer.
    if path == "/payments/callback" {
        return true;
    }
    matches!(*req.method(), Method::GET | Method::HEAD)
        && (path == "/showtimes"
            || path == "/health"
            || path == "/metrics"
            || path.starts_with("/pkg/")
            || (path.starts_with("/showtimes/")
                && (path.ends_with("/seats") || path.ends_with("/live"))))
}

/// Puts the request's [`CustomerId`] into its extensions, issuing a new one (and its cookie)
/// when the request has no valid session cookie and is not a public read.
pub async fn middleware(State(key): State<SessionKey>, mut req: Request, next: Next) -> Response {
    let existing = key.customer_in(&req);
    let customer = existing.unwrap_or_else(|| CustomerId(Uuid::new_v4()));
    let issue = existing.is_none() && !is_public_read(&req);
    req.extensions_mut().insert(customer);
    let mut response = next.run(req).await;
    if issue {
        let cookie = format!(
            "{COOKIE_NAME}={}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000{}",
            key.sign(customer),
            if key.1 { "; Secure" } else { "" }
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(SET_COOKIE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &[u8]) -> SessionKey {
        SessionKey::new(Secret::new(k.to_vec()))
    }

    #[test]
    fn a_signed_customer_id_verifies() {
        let k = key(b"0123456789abcdef0123456789abcdef");
        let c = CustomerId(Uuid::new_v4());
        assert_eq!(k.verify(&k.sign(c)), Some(c));
    }

    #[test]
    fn a_forged_or_foreign_cookie_is_rejected() {
        let k = key(b"0123456789abcdef0123456789abcdef");
        let other = key(b"another key that is long enough!");
        let c = CustomerId(Uuid::new_v4());
        assert_eq!(k.verify(&other.sign(c)), None);
        let forged = format!(
            "{}.{}",
            Uuid::new_v4(),
            k.sign(c).split_once('.').unwrap().1
        );
        assert_eq!(k.verify(&forged), None);
        assert_eq!(k.verify("garbage"), None);
    }
}
