//! Ticket types: every seat is sold at a type — adult, youth, senior, disabled (일반, 청소년,
//! 경로, 우대) — at that type's price in the seat's category. Adult is the category's own
//! price and always sold; the other types are sold for a showtime when it has prices for them
//! (fixed when it is scheduled, from its hall's defaults unless the operator gives its own).
//! The server computes every price; a booking keeps the type and price of each seat.

use crate::error::Reason;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TicketType {
    #[default]
    Adult,
    Youth,
    Senior,
    Disabled,
}

impl TicketType {
    pub const ALL: [Self; 4] = [Self::Adult, Self::Youth, Self::Senior, Self::Disabled];

    /// The code stored and sent (`ADULT`, `YOUTH`, `SENIOR`, `DISABLED`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Adult => "ADULT",
            Self::Youth => "YOUTH",
            Self::Senior => "SENIOR",
            Self::Disabled => "DISABLED",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == code)
    }

    /// Whether the holder shows proof at the door (an ID card, a senior's or disability card).
    pub fn needs_proof(self) -> bool {
        self != Self::Adult
    }

    /// The message key of the type's name.
    pub fn name_key(self) -> &'static str {
        match self {
            Self::Adult => "ticket_type.ADULT",
            Self::Youth => "ticket_type.YOUTH",
            Self::Senior => "ticket_type.SENIOR",
            Self::Disabled => "ticket_type.DISABLED",
        }
    }
}

/// How many seats of each type a customer asks for (`{"ADULT": 1, "YOUTH": 1}`); none given:
/// every seat adult.
pub type TicketCounts = BTreeMap<TicketType, u32>;

/// A seat as it was sold: its type and the price it was sold at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SoldSeat {
    pub seat: String,
    #[serde(rename = "type")]
    pub ticket_type: TicketType,
    /// In won.
    pub price: i64,
}

/// Gives each seat its type and price: the seats in the order given, the types in their own
/// order (adults first), each at `price(seat, type)` — `None` when the type is not sold for
/// that seat. Counts given must add up to the seats; none given makes every seat adult.
pub fn assign_types(
    seats: &[String],
    counts: &TicketCounts,
    price: impl Fn(&str, TicketType) -> Option<i64>,
) -> Result<Vec<SoldSeat>, Reason> {
    let given: u64 = counts.values().map(|&n| u64::from(n)).sum();
    let types: Vec<TicketType> = if counts.is_empty() {
        vec![TicketType::Adult; seats.len()]
    } else if given != seats.len() as u64 {
        return Err(Reason::new(
            "invalid.ticket_types.count",
            &[
                ("given", given.to_string()),
                ("seats", seats.len().to_string()),
            ],
        ));
    } else {
        counts
            .iter()
            .flat_map(|(&t, &n)| std::iter::repeat_n(t, n as usize))
            .collect()
    };
    seats
        .iter()
        .zip(types)
        .map(|(seat, ticket_type)| {
            let price = price(seat, ticket_type).ok_or_else(|| {
                Reason::new(
                    "invalid.ticket_types.not_sold",
                    &[("type", ticket_type.as_str().to_string())],
                )
            })?;
            Ok(SoldSeat {
                seat: seat.clone(),
                ticket_type,
                price,
            })
        })
        .collect()
}

/// How many of the seats are of each type.
pub fn type_counts(sold: &[SoldSeat]) -> BTreeMap<TicketType, u32> {
    let mut counts = BTreeMap::new();
    for s in sold {
        *counts.entry(s.ticket_type).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seats(codes: &[&str]) -> Vec<String> {
        codes.iter().map(|c| c.to_string()).collect()
    }

    /// Adult 12,000; youth 9,000; senior not sold.
    fn price(_: &str, t: TicketType) -> Option<i64> {
        match t {
            TicketType::Adult => Some(12_000),
            TicketType::Youth => Some(9_000),
            _ => None,
        }
    }

    #[test]
    fn no_counts_make_every_seat_adult() {
        let sold = assign_types(&seats(&["A1", "A2"]), &TicketCounts::new(), price).unwrap();
        assert!(sold.iter().all(|s| s.ticket_type == TicketType::Adult));
        assert_eq!(sold.iter().map(|s| s.price).sum::<i64>(), 24_000);
    }

    #[test]
    fn adults_first_then_the_others_in_seat_order() {
        let counts = TicketCounts::from([(TicketType::Youth, 1), (TicketType::Adult, 1)]);
        let sold = assign_types(&seats(&["A1", "A2"]), &counts, price).unwrap();
        assert_eq!(sold[0].ticket_type, TicketType::Adult);
        assert_eq!(
            (sold[1].seat.as_str(), sold[1].ticket_type),
            ("A2", TicketType::Youth)
        );
        assert_eq!(sold[1].price, 9_000);
    }

    #[test]
    fn counts_must_add_up_to_the_seats() {
        for counts in [
            TicketCounts::from([(TicketType::Youth, 1)]),
            TicketCounts::from([(TicketType::Adult, 2), (TicketType::Youth, 1)]),
            TicketCounts::from([(TicketType::Adult, 0)]),
        ] {
            let refused = assign_types(&seats(&["A1", "A2"]), &counts, price).unwrap_err();
            assert_eq!(refused.key, "invalid.ticket_types.count", "{counts:?}");
        }
    }

    #[test]
    fn a_type_not_sold_is_refused() {
        let counts = TicketCounts::from([(TicketType::Senior, 1)]);
        let refused = assign_types(&seats(&["A1"]), &counts, price).unwrap_err();
        assert_eq!(refused.key, "invalid.ticket_types.not_sold");
        assert_eq!(
            refused.args,
            vec![("type".to_string(), "SENIOR".to_string())]
        );
    }

    #[test]
    fn codes_read_and_write_alike() {
        for t in TicketType::ALL {
            assert_eq!(TicketType::parse(t.as_str()), Some(t));
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.as_str()));
        }
        assert_eq!(TicketType::parse("CHILD"), None);
        assert!(!TicketType::Adult.needs_proof() && TicketType::Youth.needs_proof());
    }
}
