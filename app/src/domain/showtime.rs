//! A showtime as the operator schedules it: its running time, when its seats are on sale, and
//! whether it is a hot sale.

use super::{PriceCategory, TicketType, Won};
use crate::error::Reason;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Highest price of a seat, in whole won.
pub const MAX_PRICE: Won = Won::new(10_000_000);

/// Longest running time (24 h).
pub const MAX_DURATION_MINUTES: i32 = 24 * 60;
/// Running time of a showtime scheduled without one.
pub const DEFAULT_DURATION_MINUTES: i32 = 120;

/// When a showtime's seats are on sale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SalesWindow {
    /// Holds are refused before this (none: on sale from the moment it was scheduled).
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub opens_at: Option<DateTime<Utc>>,
    /// Holds, checkouts and confirmations are refused from this on (at the latest the start).
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub closes_at: DateTime<Utc>,
}

/// Where a moment falls in a [`SalesWindow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sales {
    /// Sales open at this time.
    NotYet(DateTime<Utc>),
    Open,
    Closed,
}

impl SalesWindow {
    pub fn at(&self, now: DateTime<Utc>) -> Sales {
        match self.opens_at {
            Some(opens) if now < opens => Sales::NotYet(opens),
            _ if now >= self.closes_at => Sales::Closed,
            _ => Sales::Open,
        }
    }
}

/// What cancelling a showtime did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowtimeCancelled {
    /// It was cancelled before; nothing more was done.
    pub already: bool,
    /// Seats of live holds made free.
    pub released: usize,
    /// Paid bookings being refunded: online payments through the gateway, and counter sales
    /// owed back at the counter.
    pub refunds: usize,
    /// Of those, the counter sales (cash, card) a clerk gives back at the counter.
    #[serde(default)]
    pub owed_at_counter: usize,
}

/// What an operator makes of some seats of a showtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SeatBlock {
    /// Off public sale: only the venue's staff may sell them.
    House,
    /// Off sale: nobody may sell them.
    Killed,
    /// Back on sale.
    OnSale,
}

impl SeatBlock {
    /// The seats' status while so blocked (`None`: on sale, as their holds and sales say).
    pub fn status(self) -> Option<super::SeatStatus> {
        match self {
            Self::House => Some(super::SeatStatus::House),
            Self::Killed => Some(super::SeatStatus::Killed),
            Self::OnSale => None,
        }
    }
}

/// A showtime to schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShowtime {
    pub hall_id: i64,
    pub title: String,
    pub starts_at: DateTime<Utc>,
    pub duration_minutes: i32,
    /// None: on sale at once.
    pub sales_open_at: Option<DateTime<Utc>>,
    /// None: until the start.
    pub sales_close_at: Option<DateTime<Utc>>,
    pub hot_sale: bool,
    /// From then on its unsold wheelchair places and companion seats are ordinary seats (None:
    /// never).
    pub accessible_release_at: Option<DateTime<Utc>>,
    /// Its own prices (whole won) of some of its hall's categories; the others sell at the
    /// hall's prices.
    pub prices: BTreeMap<String, Won>,
    /// The ticket types sold besides adult (none given: every type its hall has default prices
    /// for, or it is given prices for here).
    pub ticket_types: Option<Vec<TicketType>>,
    /// Its own price of ticket types in some of its hall's categories (category → type → won);
    /// the others at the hall's defaults.
    pub ticket_prices: BTreeMap<String, super::TicketPrices>,
}

impl NewShowtime {
    /// A showtime on sale from now until its start, of the default running time, at its hall's
    /// prices and ticket types.
    pub fn on_sale(hall_id: i64, title: &str, starts_at: DateTime<Utc>) -> Self {
        Self {
            hall_id,
            title: title.to_string(),
            starts_at,
            duration_minutes: DEFAULT_DURATION_MINUTES,
            sales_open_at: None,
            sales_close_at: None,
            hot_sale: false,
            accessible_release_at: None,
            prices: BTreeMap::new(),
            ticket_types: None,
            ticket_prices: BTreeMap::new(),
        }
    }

    /// What is wrong with it, judged at `now` (all of it, one line each), or nothing.
    pub fn problems(&self, now: DateTime<Utc>) -> Vec<Reason> {
        let mut problems = Vec::new();
        if let Some(problem) = super::name_problem("invalid.what.title", &self.title, 200) {
            problems.push(problem);
        }
        if self.starts_at <= now || self.starts_at > now + Duration::days(400) {
            problems.push(Reason::new("invalid.showtime.starts", &[]));
        }
        if !(1..=MAX_DURATION_MINUTES).contains(&self.duration_minutes) {
            let max = ("max", MAX_DURATION_MINUTES.to_string());
            problems.push(Reason::new("invalid.showtime.duration", &[max]));
        }
        let closes = self.sales_close_at.unwrap_or(self.starts_at);
        if closes > self.starts_at {
            problems.push(Reason::new("invalid.showtime.closes_after_start", &[]));
        }
        if closes <= now {
            problems.push(Reason::new("invalid.showtime.closes_in_past", &[]));
        }
        if let Some(opens) = self.sales_open_at {
            if opens >= closes {
                problems.push(Reason::new("invalid.showtime.opens_after_close", &[]));
            }
        }
        if self
            .accessible_release_at
            .is_some_and(|at| at > self.starts_at)
        {
            problems.push(Reason::new("invalid.showtime.release_after_start", &[]));
        }
        for (category, price) in &self.prices {
            if !(Won::ZERO..=MAX_PRICE).contains(price) {
                problems.push(Reason::new(
                    "invalid.showtime.price",
                    &[
                        ("category", category.clone()),
                        ("max_won", MAX_PRICE.get().to_string()),
                    ],
                ));
            }
        }
        for (category, types) in &self.ticket_prices {
            for (ticket_type, price) in types.iter() {
                if !(Won::ZERO..=MAX_PRICE).contains(&price) {
                    problems.push(Reason::new(
                        "invalid.showtime.ticket_price",
                        &[
                            ("category", category.clone()),
                            ("type", ticket_type.as_str().to_string()),
                            ("max_won", MAX_PRICE.get().to_string()),
                        ],
                    ));
                }
            }
        }
        problems
    }

    /// Its price of each ticket type sold besides adult in each of its hall's `categories`: its
    /// own price, else the hall's default. A type sold needs a price in every category.
    pub fn ticket_price_table(
        &self,
        categories: &[PriceCategory],
    ) -> Result<Vec<(String, TicketType, Won)>, Reason> {
        let priced = |t: TicketType| {
            categories.iter().any(|c| c.ticket_prices.get(t).is_some())
                || self.ticket_prices.values().any(|p| p.get(t).is_some())
        };
        let sold = TicketType::ALL
            .into_iter()
            .filter(|&t| match &self.ticket_types {
                Some(types) => types.contains(&t),
                None => priced(t),
            });
        // A price given for a type that is not sold is a mistake, not something to drop.
        if let Some(types) = &self.ticket_types {
            for (category, prices) in &self.ticket_prices {
                if let Some((t, _)) = prices.iter().find(|(t, _)| !types.contains(t)) {
                    return Err(Reason::new(
                        "invalid.showtime.ticket_price_unsold",
                        &[
                            ("type", t.as_str().to_string()),
                            ("category", category.clone()),
                        ],
                    ));
                }
            }
        }
        let mut table = Vec::new();
        for ticket_type in sold.filter(|t| *t != TicketType::Adult) {
            for category in categories {
                let own = self.ticket_prices.get(&category.code);
                let price = own
                    .and_then(|t| t.get(ticket_type))
                    .or_else(|| category.ticket_prices.get(ticket_type))
                    .ok_or_else(|| {
                        Reason::new(
                            "invalid.showtime.ticket_price_missing",
                            &[
                                ("type", ticket_type.as_str().to_string()),
                                ("category", category.code.clone()),
                            ],
                        )
                    })?;
                table.push((category.code.clone(), ticket_type, price));
            }
        }
        Ok(table)
    }

    /// When its seats are on sale.
    pub fn sales(&self) -> SalesWindow {
        SalesWindow {
            opens_at: self.sales_open_at,
            closes_at: self.sales_close_at.unwrap_or(self.starts_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 24, h, 0, 0).unwrap()
    }

    fn showtime() -> NewShowtime {
        NewShowtime {
            hall_id: 1,
            title: "Premiere".into(),
            starts_at: at(19),
            duration_minutes: 120,
            sales_open_at: None,
            sales_close_at: None,
            hot_sale: false,
            accessible_release_at: None,
            prices: BTreeMap::from([("VIP".to_string(), Won::new(20_000))]),
            ticket_types: None,
            ticket_prices: BTreeMap::new(),
        }
    }

    fn category(code: &str, youth: Option<Won>) -> PriceCategory {
        PriceCategory {
            code: code.into(),
            name: code.into(),
            price: Won::new(12_000),
            ticket_prices: super::super::TicketPrices {
                youth,
                ..Default::default()
            },
        }
    }

    #[test]
    fn ticket_prices_come_from_the_hall_unless_given() {
        let hall = [
            category("STD", Some(Won::new(9_000))),
            category("VIP", Some(Won::new(15_000))),
        ];
        let table = showtime().ticket_price_table(&hall).unwrap();
        assert_eq!(
            table,
            vec![
                ("STD".to_string(), TicketType::Youth, Won::new(9_000)),
                ("VIP".to_string(), TicketType::Youth, Won::new(15_000))
            ]
        );
        let own = NewShowtime {
            ticket_prices: BTreeMap::from([(
                "VIP".to_string(),
                super::super::TicketPrices {
                    youth: Some(Won::new(14_000)),
                    ..Default::default()
                },
            )]),
            ..showtime()
        };
        assert_eq!(
            own.ticket_price_table(&hall).unwrap()[1].2,
            Won::new(14_000)
        );
        let adult_only = NewShowtime {
            ticket_types: Some(Default::default()),
            ..showtime()
        };
        assert!(adult_only.ticket_price_table(&hall).unwrap().is_empty());
        // A youth price for a showtime that sells no youth tickets: said, not dropped.
        let unsold = NewShowtime {
            ticket_types: Some(vec![]),
            ..own.clone()
        };
        let refused = unsold.ticket_price_table(&hall).unwrap_err();
        assert_eq!(refused.key, "invalid.showtime.ticket_price_unsold");
        // Seniors at a hall without their prices: a price is missing, and said so.
        let seniors = NewShowtime {
            ticket_types: Some(vec![TicketType::Senior]),
            ..showtime()
        };
        let missing = seniors.ticket_price_table(&hall).unwrap_err();
        assert_eq!(missing.key, "invalid.showtime.ticket_price_missing");
        // A hall where only one category has youth prices sells no youth ticket by default.
        let half = [
            category("STD", Some(Won::new(9_000))),
            category("VIP", None),
        ];
        assert!(showtime().ticket_price_table(&half).is_err());
    }

    #[test]
    fn the_window_opens_at_its_opening_and_closes_at_its_close() {
        let window = SalesWindow {
            opens_at: Some(at(10)),
            closes_at: at(18),
        };
        assert_eq!(window.at(at(9)), Sales::NotYet(at(10)));
        assert_eq!(window.at(at(10)), Sales::Open);
        assert_eq!(window.at(at(17)), Sales::Open);
        assert_eq!(window.at(at(18)), Sales::Closed);
        let always = SalesWindow {
            opens_at: None,
            closes_at: at(18),
        };
        assert_eq!(always.at(at(0)), Sales::Open);
        assert_eq!(
            showtime().sales().closes_at,
            at(19),
            "by default, sales close at the start"
        );
    }

    #[test]
    fn a_schedule_lists_every_problem() {
        assert!(showtime().problems(at(8)).is_empty());
        let bad = NewShowtime {
            title: " ".into(),
            duration_minutes: 0,
            sales_open_at: Some(at(20)),
            sales_close_at: Some(at(20)),
            prices: BTreeMap::from([
                ("VIP".to_string(), Won::new(-1)),
                ("STANDARD".to_string(), Won::ZERO),
            ]),
            ..showtime()
        };
        let problems: Vec<String> = bad.problems(at(8)).iter().map(|p| p.to_string()).collect();
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems.contains(&"The price of VIP is ₩0 to ₩10,000,000.".to_string()));
        // Said in Korean too, from the same reasons.
        let korean = crate::error::said(&bad.problems(at(8)), crate::i18n::Lang::Ko);
        assert!(korean.contains("VIP") && korean.contains("원"), "{korean}");
        let late = NewShowtime {
            sales_close_at: Some(at(9)),
            ..showtime()
        };
        assert_eq!(
            late.problems(at(10)),
            vec![Reason::new("invalid.showtime.closes_in_past", &[])]
        );
        let past = showtime().problems(at(20));
        assert!(
            past.iter()
                .any(|p| p.to_string().contains("starts in the future")),
            "{past:?}"
        );
    }
}
