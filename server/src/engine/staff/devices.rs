//! What tells a member's tries from a stranger's without a refusal a stranger could set off.
//!
//! - **A device she signed in from.** A browser that signed in before carries a signed cookie
//!   with a random device id (`seats_device`, given at every successful sign-in); her tries from
//!   it are counted on a key of that device alone, with waits. A stranger never has her cookie,
//!   so nothing a stranger sends slows her there.
//! - **A proof of work, growing with failures, instead of a refusal.** Everywhere else (a new
//!   kiosk, a new account, a changed address, a fresh deployment) tries are counted per account
//!   and address and per account from anywhere, and never refused: past their free tries a try
//!   must come with a proof of work ([`sign_in_bits`]) that the sign-in page solves by itself.
//!   A stranger can make her wait a second or two of her kiosk's work; never make her right
//!   password fail. Every guess past the free ones costs the guesser that work.

use super::*;
use crate::store::Throttled;
use app::domain::QueueProof;
use hmac::{Hmac, Mac};

/// The fewest bits a proof asks (the first try past the free ones): a few thousand hashes.
const FIRST_BITS: u8 = 12;
/// The most bits a proof asks: about a million hashes, a second or two on a kiosk's or a
/// phone's browser. Each failure past the free ones adds a bit until then.
pub const MOST_BITS: u8 = 20;
/// The bits an address that failed too often lately asks at least (`StaffDoor`).
pub const BUSY_ADDRESS_BITS: u8 = 14;
/// How long a challenge may be answered: its window of two minutes and the next.
const CHALLENGE_WINDOW_MS: i64 = 120_000;

/// The proof of work asked before a try counted on `keys` (with the failures each holds now):
/// none within their free tries, then [`FIRST_BITS`] and one bit more per failure past them,
/// at most [`MOST_BITS`].
pub fn sign_in_bits(keys: &[(Throttled, u32)], free: &[u32]) -> u8 {
    let excess = keys
        .iter()
        .zip(free)
        .map(|((_, failures), free)| failures.saturating_sub(*free))
        .max()
        .unwrap_or(0);
    match excess {
        0 => 0,
        n => (u32::from(FIRST_BITS) + n - 1).min(u32::from(MOST_BITS)) as u8,
    }
}

impl Engine {
    /// Signs staff browsers' device cookies and sign-in challenges with a key derived from
    /// `secret` (the session secret every instance shares).
    pub fn with_staff_key(mut self, secret: &[u8]) -> Self {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
        mac.update(b"staff devices and sign-in proofs");
        self.staff_key = mac.finalize().into_bytes().to_vec();
        self
    }

    fn staff_mac(&self, payload: &str) -> String {
        mac(&self.staff_key, payload)
    }

    /// A new device cookie's value: `<device id>.<mac>`.
    pub(super) fn new_device(&self) -> String {
        new_device(&self.staff_key)
    }

    /// The device id of a cookie this server signed (none for any other value).
    pub(super) fn device_id<'c>(&self, cookie: &'c str) -> Option<&'c str> {
        device_id(&self.staff_key, cookie)
    }

    /// A challenge for a sign-in of `name`: `signin.<window>.<random>.<mac>`, new each time,
    /// good for two to four minutes.
    pub(super) fn sign_in_challenge(&self, name: &str) -> String {
        let window = self.now_at().0.timestamp_millis() / CHALLENGE_WINDOW_MS;
        let fresh = hex::encode(rand::random::<[u8; 8]>());
        let tag = self.staff_mac(&format!("signin.{}.{window}.{fresh}", name_key(name)));
        format!("signin.{window}.{fresh}.{tag}")
    }

    /// Whether `proof` answers a recent challenge of ours for `name` at `bits` (the bits asked
    /// now, not when it was given: a challenge fetched early proves no more than one fetched
    /// now), and was not used before.
    pub(super) async fn proof_holds(
        &self,
        name: &str,
        proof: &QueueProof,
        bits: u8,
    ) -> Result<bool, InventoryError> {
        let now = self.now_at();
        let window = now.0.timestamp_millis() / CHALLENGE_WINDOW_MS;
        let mut parts = proof.challenge.split('.');
        let (Some("signin"), Some(w), Some(fresh), Some(tag), None) = (
            parts.next(),
            parts.next().and_then(|w| w.parse::<i64>().ok()),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Ok(false);
        };
        let ours = (w == window || w == window - 1)
            && same(
                &self.staff_mac(&format!("signin.{}.{w}.{fresh}", name_key(name))),
                tag,
            );
        if !ours || !QueueProof::solves(&proof.challenge, proof.nonce, bits) {
            return Ok(false);
        }
        let used = format!("proof:{}", &secret_hash(&proof.challenge)[..32]);
        Ok(self.store.throttle_once(&used, now).await?)
    }
}

fn mac(key: &[u8], payload: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(payload.as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

fn new_device(key: &[u8]) -> String {
    let id = hex::encode(rand::random::<[u8; 16]>());
    let tag = mac(key, &format!("device.{id}"));
    format!("{id}.{tag}")
}

fn device_id<'c>(key: &[u8], cookie: &'c str) -> Option<&'c str> {
    let (id, tag) = cookie.split_once('.')?;
    let ours = id.len() == 32
        && id.bytes().all(|b| b.is_ascii_hexdigit())
        && same(&mac(key, &format!("device.{id}")), tag);
    ours.then_some(id)
}

/// Compares two MACs in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u32) -> (Throttled, u32) {
        let rule = crate::store::ThrottleRule {
            free: u32::MAX,
            first: Duration::ZERO,
            max: Duration::ZERO,
        };
        (
            Throttled {
                key: "k".into(),
                rule,
            },
            n,
        )
    }

    #[test]
    fn the_proof_asked_grows_a_bit_a_failure_past_the_free_tries_up_to_the_most() {
        let free = [5, 20];
        assert_eq!(sign_in_bits(&[key(5), key(20)], &free), 0);
        assert_eq!(sign_in_bits(&[key(6), key(0)], &free), FIRST_BITS);
        assert_eq!(sign_in_bits(&[key(0), key(23)], &free), FIRST_BITS + 2);
        assert_eq!(sign_in_bits(&[key(1000), key(0)], &free), MOST_BITS);
    }

    #[test]
    fn a_device_cookie_is_ours_only_as_signed() {
        let cookie = new_device(b"a key");
        let id = device_id(b"a key", &cookie).expect("ours");
        assert_eq!(id.len(), 32);
        let forged = format!("{id}.{}", "0".repeat(32));
        assert_eq!(device_id(b"a key", &forged), None);
        assert_eq!(device_id(b"another key", &cookie), None, "another server's");
        assert_eq!(device_id(b"a key", "not.a cookie"), None);
    }
}
