//! Signed gateway callbacks: `Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the
//! MAC is taken over `"<t>.<raw body>"` with the shared `PAYMENT_WEBHOOK_SECRET`. The timestamp
//! is inside the MAC, so a captured callback cannot be replayed later than the tolerance.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The secret both sides use when `PAYMENT_WEBHOOK_SECRET` is unset (development only).
pub const DEVELOPMENT_SECRET: &str = "development webhook secret - not for production";

/// The header that carries the signature.
pub const HEADER: &str = "sandbox-signature";
/// How far a callback's timestamp may be from the receiver's clock.
pub const TOLERANCE_SECONDS: i64 = 300;

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The header value for `body` sent at `timestamp` (unix seconds).
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    let tag = mac(secret, timestamp, body).finalize().into_bytes();
    format!("t={timestamp},v1={}", hex::encode(tag))
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the signature header is missing or malformed")]
    Malformed,
    #[error("the signature does not match the body")]
    Mismatch,
    #[error("the signature's timestamp is more than {TOLERANCE_SECONDS} s from now")]
    Stale,
}

/// Checks a header value against the raw body, at `now` (unix seconds).
pub fn verify(secret: &[u8], header: &str, body: &[u8], now: i64) -> Result<(), SignatureError> {
    let mut timestamp = None;
    let mut tag = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => timestamp = v.parse::<i64>().ok(),
            Some(("v1", v)) => tag = hex::decode(v).ok(),
            _ => {}
        }
    }
    let (Some(timestamp), Some(tag)) = (timestamp, tag) else {
        return Err(SignatureError::Malformed);
    };
    mac(secret, timestamp, body)
        .verify_slice(&tag)
        .map_err(|_| SignatureError::Mismatch)?;
    if (now - timestamp).abs() > TOLERANCE_SECONDS {
        return Err(SignatureError::Stale);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"a development webhook secret";

    #[test]
    fn a_signed_body_verifies_and_any_change_does_not() {
        let body = br#"{"type":"payment.succeeded","amount":12000}"#;
        let header = sign(SECRET, 1_700_000_000, body);
        assert_eq!(verify(SECRET, &header, body, 1_700_000_010), Ok(()));
        assert_eq!(
            verify(
                SECRET,
                &header,
                br#"{"type":"payment.succeeded","amount":1}"#,
                1_700_000_010
            ),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(b"another secret", &header, body, 1_700_000_010),
            Err(SignatureError::Mismatch)
        );
        // The timestamp is signed too: moving it breaks the MAC.
        let moved = header.replace("t=1700000000", "t=1700000100");
        assert_eq!(
            verify(SECRET, &moved, body, 1_700_000_100),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn stale_and_malformed_signatures_are_refused() {
        let body = b"{}";
        let header = sign(SECRET, 1_700_000_000, body);
        assert_eq!(
            verify(SECRET, &header, body, 1_700_000_000 + TOLERANCE_SECONDS + 1),
            Err(SignatureError::Stale)
        );
        for bad in ["", "t=1", "v1=00", "t=x,v1=zz", "garbage"] {
            assert_eq!(
                verify(SECRET, bad, body, 1_700_000_000),
                Err(SignatureError::Malformed),
                "{bad:?}"
            );
        }
    }
}
