//! How a customer is reached beyond the browser that booked: an e-mail address given at checkout
//! (with the booking's reference it finds the booking again on any device), and the language the
//! customer's messages are written in.

use crate::error::Reason;
use serde::{Deserialize, Serialize};

/// The longest address SMTP carries (RFC 5321: a 256-octet path less its angle brackets).
pub const MAX_EMAIL_LEN: usize = 254;

/// An e-mail address as it is stored and compared: trimmed and lower-cased (no two customers
/// tell addresses apart by case), one `@` with a non-empty local part before it and a domain
/// with a dot after it, no spaces, no control characters, at most [`MAX_EMAIL_LEN`] bytes.
/// Whether mail reaches it is the mail server's to say; this only refuses what cannot be one.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Email(String);

/// Masked, so that a value printed for debugging (a log line) never shows the address.
impl std::fmt::Debug for Email {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Email({})", self.masked())
    }
}

impl Email {
    pub fn parse(text: &str) -> Result<Self, Reason> {
        let address = text.trim().to_lowercase();
        let invalid = || Reason::new("invalid.email", &[]);
        if address.is_empty() {
            return Err(Reason::new("invalid.email_missing", &[]));
        }
        if address.len() > MAX_EMAIL_LEN {
            return Err(Reason::new(
                "invalid.email_long",
                &[("max", MAX_EMAIL_LEN.to_string())],
            ));
        }
        let Some((local, domain)) = address.split_once('@') else {
            return Err(invalid());
        };
        let bad_char = |c: char| {
            c.is_whitespace()
                || super::unprintable(&c.to_string()).is_some()
                || matches!(
                    c,
                    '@' | '<' | '>' | '(' | ')' | ',' | ';' | ':' | '\\' | '"'
                )
        };
        let domain_ok = domain.len() >= 3
            && domain.contains('.')
            && !domain.starts_with(['.', '-'])
            && !domain.ends_with(['.', '-'])
            && !domain.contains("..");
        if local.is_empty()
            || local.starts_with('.')
            || local.ends_with('.')
            || local.contains("..")
            || !domain_ok
            || address.chars().filter(|&c| c == '@').count() != 1
            || local.chars().any(bad_char)
            || domain.chars().any(bad_char)
        {
            return Err(invalid());
        }
        Ok(Self(address))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether our mailer can send to the address: an ASCII local part and a domain of ASCII
    /// labels (letters, digits, inner hyphens) under a name, not a number. An internationalised
    /// domain (`예시.kr`: its `xn--` form works), an address in another script and an IP
    /// literal (`[192.0.2.1]`) are addresses, but the ticket could never be sent to them.
    pub fn deliverable(&self) -> Result<(), Reason> {
        let (local, domain) = self.0.split_once('@').unwrap_or_default();
        let label_ok = |label: &str| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        };
        let top = domain.rsplit('.').next().unwrap_or_default();
        let ok = local.is_ascii()
            && domain.split('.').all(label_ok)
            && !top.bytes().all(|b| b.is_ascii_digit());
        if ok {
            Ok(())
        } else {
            Err(Reason::new("invalid.email_undeliverable", &[]))
        }
    }

    /// The address as pages and the REST API show it to whoever holds the booking: the first
    /// letter of the local part, then stars, then the domain (`k***@example.com`).
    pub fn masked(&self) -> String {
        mask(&self.0)
    }
}

/// [`Email::masked`] of a stored address.
pub fn mask(address: &str) -> String {
    match address.split_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{domain}")
        }
        None => "***".into(),
    }
}

impl TryFrom<String> for Email {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text).map_err(|r| r.said(crate::i18n::Lang::En))
    }
}

impl From<Email> for String {
    fn from(email: Email) -> Self {
        email.0
    }
}

/// The language a customer's messages are written in (`ko` or `en`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum MailLanguage {
    #[default]
    Ko,
    En,
}

impl MailLanguage {
    pub fn code(self) -> &'static str {
        match self {
            Self::Ko => "ko",
            Self::En => "en",
        }
    }

    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "ko" => Some(Self::Ko),
            "en" => Some(Self::En),
            _ => None,
        }
    }
}

impl From<crate::i18n::Lang> for MailLanguage {
    fn from(lang: crate::i18n::Lang) -> Self {
        match lang {
            crate::i18n::Lang::Ko => Self::Ko,
            crate::i18n::Lang::En => Self::En,
        }
    }
}

/// What checkout is told besides the hold: where the ticket goes, in which language, and the
/// seats' ticket types.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CheckoutDetails {
    #[serde(default)]
    pub email: Option<Email>,
    #[serde(default)]
    pub language: Option<MailLanguage>,
    /// How many seats of each type (none: every seat adult).
    #[serde(default, skip_serializing_if = "super::TicketCounts::is_empty")]
    pub ticket_types: super::TicketCounts,
}

/// A booking looked up by its reference (the short number on its ticket) and the address given
/// at checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BookingLookup {
    pub reference: String,
    pub email: String,
}

impl BookingLookup {
    /// The reference as bookings carry it (8 hex digits, upper case), if it can be one.
    pub fn reference(&self) -> Option<String> {
        let r: String = self
            .reference
            .trim()
            .trim_start_matches('#')
            .chars()
            .filter(|c| *c != '-' && *c != ' ')
            .collect::<String>()
            .to_ascii_uppercase();
        (r.len() == 8 && r.chars().all(|c| c.is_ascii_hexdigit())).then_some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_our_mailer_cannot_send_to_is_an_address_but_not_deliverable() {
        for address in ["kim@xn--9n2bp8q.kr", "kim.min+tix@mail-1.example.co.kr"] {
            let email = Email::parse(address).unwrap();
            assert_eq!(email.deliverable(), Ok(()), "{address}");
        }
        for address in [
            "kim@예시.kr",
            "김@example.com",
            "kim@[192.0.2.1]",
            "kim@192.0.2.1",
        ] {
            let email = Email::parse(address).expect(address);
            assert!(email.deliverable().is_err(), "{address}");
        }
    }

    #[test]
    fn addresses_are_trimmed_and_lower_cased() {
        let email = Email::parse("  Kim.Min@Example.COM ").unwrap();
        assert_eq!(email.as_str(), "kim.min@example.com");
        assert_eq!(email.masked(), "k***@example.com");
        assert_eq!(format!("{email:?}"), "Email(k***@example.com)");
    }

    #[test]
    fn what_cannot_be_an_address_is_refused_with_its_reason() {
        assert_eq!(Email::parse(" ").unwrap_err().key, "invalid.email_missing");
        for bad in [
            "kim",
            "kim@",
            "@example.com",
            "kim@example",
            "kim@@example.com",
            "kim@exa mple.com",
            "kim lee@example.com",
            "kim@.example.com",
            "kim@example.com.",
            ".kim@example.com",
            "kim..lee@example.com",
            "kim@example..com",
            "kim\u{202E}@example.com",
            "kim@example.com\r\nBcc: x@y.z",
            "<kim@example.com>",
            "kim,lee@example.com",
        ] {
            assert_eq!(
                Email::parse(bad).unwrap_err().key,
                "invalid.email",
                "{bad:?}"
            );
        }
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(Email::parse(&long).unwrap_err().key, "invalid.email_long");
    }

    #[test]
    fn json_refuses_a_bad_address_and_an_unknown_field() {
        let ok: CheckoutDetails =
            serde_json::from_str(r#"{"email":"A@B.CO","language":"en"}"#).unwrap();
        assert_eq!(ok.email.unwrap().as_str(), "a@b.co");
        assert_eq!(ok.language, Some(MailLanguage::En));
        assert!(serde_json::from_str::<CheckoutDetails>(r#"{"email":"nope"}"#).is_err());
        assert!(serde_json::from_str::<CheckoutDetails>(r#"{"language":"fr"}"#).is_err());
        assert!(serde_json::from_str::<CheckoutDetails>(r#"{"emial":"a@b.co"}"#).is_err());
        assert_eq!(
            serde_json::from_str::<CheckoutDetails>("{}").unwrap(),
            CheckoutDetails::default()
        );
    }

    #[test]
    fn references_are_read_as_people_type_them() {
        let lookup = |r: &str| {
            BookingLookup {
                reference: r.into(),
                email: String::new(),
            }
            .reference()
        };
        assert_eq!(lookup(" #21d6-b008 ").as_deref(), Some("21D6B008"));
        assert_eq!(lookup("21D6B00"), None);
        assert_eq!(lookup("21D6B00G"), None);
        assert_eq!(lookup("21D6B0081"), None);
    }
}

/// A message to a customer as the console lists it (never with its address).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerMessage {
    /// The booking's reference (its number on the ticket).
    pub reference: String,
    /// `ticket` or `refund`.
    pub kind: String,
    /// `queued` (new, or waiting to be tried again), `sent`, `parked` (failed too often: an
    /// operator looks) or `skipped` (the address was gone by then).
    pub status: String,
    pub attempts: i32,
    /// Why the last try failed (addresses masked).
    pub last_error: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub sent_at: Option<chrono::DateTime<chrono::Utc>>,
}
