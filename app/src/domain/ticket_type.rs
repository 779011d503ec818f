//! Ticket types: every seat is sold at a type — adult, youth, senior, disabled (일반, 청소년,
//! 경로, 우대) — at that type's price in the seat's category. Adult is the category's own
//! price and always sold; the other types are sold for a showtime when it has prices for them
//! (fixed when it is scheduled, from its hall's defaults unless the operator gives its own).
//! The server computes every price; a booking keeps the type and price of each seat.

use super::Won;
use crate::error::Reason;
use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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

/// How many seats of each type a customer asks for (`{"ADULT": 1, "YOUTH": 1}`); none given
/// (or all zero): every seat adult. Fields, not a map: the browser's bundle carries no map code
/// for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE", deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TicketCounts {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub adult: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub youth: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub senior: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub disabled: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl TicketCounts {
    fn slot(&mut self, t: TicketType) -> &mut u32 {
        match t {
            TicketType::Adult => &mut self.adult,
            TicketType::Youth => &mut self.youth,
            TicketType::Senior => &mut self.senior,
            TicketType::Disabled => &mut self.disabled,
        }
    }

    pub fn get(&self, t: TicketType) -> u32 {
        let mut copy = *self;
        *copy.slot(t)
    }

    pub fn set(&mut self, t: TicketType, n: u32) {
        *self.slot(t) = n;
    }

    /// Seats counted in all.
    pub fn total(&self) -> u64 {
        TicketType::ALL
            .iter()
            .map(|&t| u64::from(self.get(t)))
            .sum()
    }

    /// None given: every seat adult.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
}

/// A category's prices of the ticket types besides adult (`{"YOUTH": 9000, "SENIOR": 6000}`);
/// a type without one is not sold in it. Fields, not a map, as for [`TicketCounts`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE", deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TicketPrices {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<i64>))]
    pub youth: Option<Won>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<i64>))]
    pub senior: Option<Won>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<i64>))]
    pub disabled: Option<Won>,
}

impl TicketPrices {
    /// The price of `t` (adult: none here, it is the category's own).
    pub fn get(&self, t: TicketType) -> Option<Won> {
        match t {
            TicketType::Adult => None,
            TicketType::Youth => self.youth,
            TicketType::Senior => self.senior,
            TicketType::Disabled => self.disabled,
        }
    }

    /// Sets the price of `t` (adult is left alone: it is the category's own).
    pub fn set(&mut self, t: TicketType, price: Won) {
        match t {
            TicketType::Adult => {}
            TicketType::Youth => self.youth = Some(price),
            TicketType::Senior => self.senior = Some(price),
            TicketType::Disabled => self.disabled = Some(price),
        }
    }

    /// The types priced, in their order, with their prices.
    pub fn iter(&self) -> impl Iterator<Item = (TicketType, Won)> + '_ {
        TicketType::ALL
            .into_iter()
            .filter_map(|t| self.get(t).map(|p| (t, p)))
    }

    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

/// A seat as it was sold: its type and the price it was sold at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SoldSeat {
    pub seat: String,
    #[serde(rename = "type")]
    pub ticket_type: TicketType,
    /// In won.
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub price: Won,
}

/// What became of a seat a booking no longer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum GivenBack {
    /// Its money was given back.
    Refunded,
    /// It was exchanged at the counter for another seat (the booking's price stays).
    Exchanged,
}

/// A seat a booking was sold and no longer has: as it was sold, and what became of it. With the
/// seats it has, a booking keeps every seat it was ever sold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatGivenBack {
    pub seat: String,
    #[serde(rename = "type")]
    pub ticket_type: TicketType,
    /// In won: what it was sold for.
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub price: Won,
    pub state: GivenBack,
}

/// Gives each seat its type and price: the seats in the order given, the types in their own
/// order (adults first), each at `price(seat, type)` — `None` when the type is not sold for
/// that seat. Counts given must add up to the seats; none given makes every seat adult.
pub fn assign_types(
    seats: &[String],
    counts: &TicketCounts,
    price: impl Fn(&str, TicketType) -> Option<Won>,
) -> Result<Vec<SoldSeat>, Reason> {
    let given = counts.total();
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
        TicketType::ALL
            .into_iter()
            .flat_map(|t| std::iter::repeat_n(t, counts.get(t) as usize))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn seats(codes: &[&str]) -> Vec<String> {
        codes.iter().map(|c| c.to_string()).collect()
    }

    /// Adult 12,000; youth 9,000; senior not sold.
    fn price(_: &str, t: TicketType) -> Option<Won> {
        match t {
            TicketType::Adult => Some(Won::new(12_000)),
            TicketType::Youth => Some(Won::new(9_000)),
            _ => None,
        }
    }

    #[test]
    fn no_counts_make_every_seat_adult() {
        let sold = assign_types(&seats(&["A1", "A2"]), &TicketCounts::default(), price).unwrap();
        assert!(sold.iter().all(|s| s.ticket_type == TicketType::Adult));
        assert_eq!(sold.iter().map(|s| s.price).sum::<Won>(), Won::new(24_000));
    }

    #[test]
    fn adults_first_then_the_others_in_seat_order() {
        let counts: TicketCounts = serde_json::from_str(r#"{"YOUTH": 1, "ADULT": 1}"#).unwrap();
        let sold = assign_types(&seats(&["A1", "A2"]), &counts, price).unwrap();
        assert_eq!(sold[0].ticket_type, TicketType::Adult);
        assert_eq!(
            (sold[1].seat.as_str(), sold[1].ticket_type),
            ("A2", TicketType::Youth)
        );
        assert_eq!(sold[1].price, Won::new(9_000));
    }

    #[test]
    fn counts_must_add_up_to_the_seats() {
        for counts in [r#"{"YOUTH": 1}"#, r#"{"ADULT": 2, "YOUTH": 1}"#] {
            let counts: TicketCounts = serde_json::from_str(counts).unwrap();
            let refused = assign_types(&seats(&["A1", "A2"]), &counts, price).unwrap_err();
            assert_eq!(refused.key, "invalid.ticket_types.count", "{counts:?}");
        }
    }

    #[test]
    fn a_type_not_sold_is_refused() {
        let counts = TicketCounts {
            senior: 1,
            ..Default::default()
        };
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
        // Counts and prices read as maps of type codes, and refuse what is not one.
        let counts: TicketCounts = serde_json::from_str(r#"{"SENIOR": 2}"#).unwrap();
        assert_eq!((counts.get(TicketType::Senior), counts.total()), (2, 2));
        assert_eq!(serde_json::to_string(&counts).unwrap(), r#"{"SENIOR":2}"#);
        for bad in [r#"{"CHILD": 1}"#, r#"{"YOUTH": -1}"#, r#"["YOUTH"]"#] {
            assert!(serde_json::from_str::<TicketCounts>(bad).is_err(), "{bad}");
        }
        let prices: TicketPrices = serde_json::from_str(r#"{"YOUTH": 9000}"#).unwrap();
        assert_eq!(
            prices.iter().collect::<Vec<_>>(),
            [(TicketType::Youth, Won::new(9000))]
        );
        assert_eq!(prices.get(TicketType::Adult), None);
        assert!(serde_json::from_str::<TicketPrices>(r#"{"ADULT": 1}"#).is_err());
    }
}
