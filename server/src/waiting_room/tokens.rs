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
}
