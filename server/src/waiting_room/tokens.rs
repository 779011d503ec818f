//! Admission tokens: `<showtime>.<ticket>.<customer>.<expiry ms>.<hmac>`, signed with a key
//! derived from the session secret, checked by the hold endpoint.

use super::*;

impl WaitingRoom {
    fn mac(&self, payload: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(payload.as_bytes());
        mac
    }

    /// An admission token: `<showtime>.<ticket>.<customer>.<expiry ms>.<hmac>`.
    pub fn sign(
        &self,
        showtime: ShowtimeId,
        ticket: &str,
        customer: CustomerId,
        until_ms: i64,
    ) -> String {
        let payload = format!("{}.{ticket}.{}.{until_ms}", showtime.get(), customer.0);
        let tag = hex::encode(self.mac(&payload).finalize().into_bytes());
        format!("{payload}.{tag}")
    }

    /// The ticket a token admits, if it is ours, for this showtime and customer, and not past
    /// its expiry.
    pub fn verify(
        &self,
        token: &str,
        showtime: ShowtimeId,
        customer: CustomerId,
    ) -> Option<String> {
        let (payload, tag) = token.rsplit_once('.')?;
        let mut parts = payload.split('.');
        let (s, ticket, c, until) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        self.mac(payload)
            .verify_slice(&hex::decode(tag).ok()?)
            .ok()?;
        let fits = s == showtime.get().to_string()
            && c == customer.0.to_string()
            && until.parse::<i64>().ok()? > self.wall_now();
        fits.then(|| ticket.to_string())
    }
}

/// How long a proof-of-work challenge is good for: its window and the one after it.
const CHALLENGE_WINDOW_MS: i64 = 600_000;

impl WaitingRoom {
    /// A proof-of-work challenge for a new place of `customer` in the showtime's room:
    /// `<showtime>.<window>.<random>.<hmac>`, good for 10 to 20 minutes, nobody else's, and a new
    /// one each time (a proof makes one place: the room keeps the challenges used).
    pub fn challenge(&self, showtime: ShowtimeId, customer: CustomerId) -> String {
        let window = self.wall_now() / CHALLENGE_WINDOW_MS;
        let fresh = hex::encode(rand::random::<[u8; 8]>());
        self.challenge_in(showtime, customer, window, &fresh)
    }

    fn challenge_in(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        window: i64,
        fresh: &str,
    ) -> String {
        let payload = format!("proof.{}.{}.{window}.{fresh}", showtime.get(), customer.0);
        let tag = self.mac(&payload).finalize().into_bytes();
        format!(
            "{}.{window}.{fresh}.{}",
            showtime.get(),
            hex::encode(&tag[..16])
        )
    }

    /// Whether `proof` solves a challenge this room gave `customer` lately, at `bits` (whether
    /// it was used already is the room's state: `join`).
    pub fn proven(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        proof: &app::domain::QueueProof,
        bits: u8,
    ) -> bool {
        let now = self.wall_now() / CHALLENGE_WINDOW_MS;
        let mut parts = proof.challenge.split('.');
        let (Some(_), Some(window), Some(fresh), Some(_), None) = (
            parts.next(),
            parts.next().and_then(|w| w.parse::<i64>().ok()),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return false;
        };
        let ours = (window == now || window == now - 1)
            && fresh.len() == 16
            && self.challenge_in(showtime, customer, window, fresh) == proof.challenge;
        ours && app::domain::QueueProof::solves(&proof.challenge, proof.nonce, bits)
    }

    /// How long a used challenge is remembered: as long as it could be proven.
    pub(super) fn challenge_lifetime_ms() -> i64 {
        2 * CHALLENGE_WINDOW_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room() -> WaitingRoom {
        WaitingRoom::new(
            None,
            RoomPolicy::default(),
            b"a test key of some length",
            Clock::default(),
        )
    }

    #[test]
    fn an_admission_token_admits_its_showtime_and_customer_until_it_expires() {
        let room = room();
        let (s, other) = (
            ShowtimeId::try_from(7).unwrap(),
            ShowtimeId::try_from(8).unwrap(),
        );
        let c = CustomerId(uuid::Uuid::new_v4());
        let later = room.wall_now() + 60_000;
        let token = room.sign(s, "abc", c, later);
        assert_eq!(room.verify(&token, s, c).as_deref(), Some("abc"));
        assert_eq!(room.verify(&token, other, c), None, "another showtime");
        assert_eq!(
            room.verify(&token, s, CustomerId(uuid::Uuid::new_v4())),
            None
        );
        let expired = room.sign(s, "abc", c, room.wall_now() - 1);
        assert_eq!(room.verify(&expired, s, c), None, "expired");
        let forged = token.replace(&later.to_string(), &(later + 1).to_string());
        assert_eq!(room.verify(&forged, s, c), None, "changed expiry");
        let foreign = WaitingRoom::new(
            None,
            RoomPolicy::default(),
            b"another key",
            Clock::default(),
        );
        assert_eq!(foreign.verify(&token, s, c), None, "another server's key");
    }

    #[test]
    fn a_proof_counts_for_its_own_challenge_customer_and_work() {
        use app::domain::QueueProof;
        let room = room();
        let s = ShowtimeId::try_from(7).unwrap();
        let (c, other) = (
            CustomerId(uuid::Uuid::new_v4()),
            CustomerId(uuid::Uuid::new_v4()),
        );
        let challenge = room.challenge(s, c);
        let nonce = QueueProof::search(&challenge, 12, 0, 1 << 24).expect("12 bits are found");
        let proof = QueueProof { challenge, nonce };
        assert!(room.proven(s, c, &proof, 12));
        assert!(!room.proven(s, other, &proof, 12), "another customer's");
        assert!(
            !room.proven(ShowtimeId::try_from(8).unwrap(), c, &proof, 12),
            "another showtime's"
        );
        // The first nonce that solves 12 bits almost never solves 20.
        let harder = QueueProof::search(&proof.challenge, 20, 0, nonce + 1);
        assert_eq!(room.proven(s, c, &proof, 20), harder == Some(nonce));
        let made_up = QueueProof {
            challenge: format!(
                "7.{}.{}.{}",
                room.wall_now() / CHALLENGE_WINDOW_MS,
                "0".repeat(16),
                "0".repeat(32)
            ),
            nonce,
        };
        assert!(!room.proven(s, c, &made_up, 0), "not a challenge of ours");
        assert_ne!(
            room.challenge(s, c),
            room.challenge(s, c),
            "a new challenge each time"
        );
    }
}
