//! The ticket types of the held seats: how many of each the customer (or the clerk) chose, and
//! what they cost — worked out with the same rule the server prices them by.

use super::*;
use crate::domain::{assign_types, SoldSeat, TicketCounts, TicketType};

impl Picker {
    /// The held seats in reading order.
    fn held_codes(self) -> Vec<String> {
        self.hold.with(|h| {
            h.as_ref()
                .map(|h| seating::reading_order(h.hold.seats.iter().map(|s| s.as_str())))
                .unwrap_or_default()
        })
    }

    /// The price of `code` at `ticket_type`, if that type is sold in its category.
    fn price_at(self, code: &str, ticket_type: TicketType) -> Option<crate::domain::Won> {
        let category = self.seats.with_value(|seats| {
            seats
                .iter()
                .find(|s| s.code.as_str() == code)
                .map(|s| s.category.clone())
        })?;
        self.categories.with_value(|categories| {
            categories
                .iter()
                .find(|c| c.code == category)?
                .price_for(ticket_type)
        })
    }

    /// The types the held seats can be sold as: adult, and each type sold in all of their
    /// categories.
    pub fn sold_types(self) -> Vec<TicketType> {
        let held = self.held_codes();
        TicketType::ALL
            .into_iter()
            .filter(|&t| {
                !held.is_empty() && held.iter().all(|code| self.price_at(code, t).is_some())
            })
            .collect()
    }

    /// How many held seats are of `ticket_type` now (adult: those no other type took).
    pub fn type_count(self, ticket_type: TicketType) -> u32 {
        // The signal counts the other types only; adults are the rest.
        let others = self.types.with(|t| t.total()) as u32;
        match ticket_type {
            TicketType::Adult => (self.held_codes().len() as u32).saturating_sub(others),
            other => self.types.with(|t| t.get(other)),
        }
    }

    /// One more seat of `ticket_type` (one adult fewer), or one fewer (one adult more).
    pub fn change_type(self, ticket_type: TicketType, more: bool) {
        if ticket_type == TicketType::Adult {
            return;
        }
        let (adults, now) = (
            self.type_count(TicketType::Adult),
            self.type_count(ticket_type),
        );
        let next = match more {
            true if adults > 0 => now + 1,
            false if now > 0 => now - 1,
            _ => return,
        };
        self.types.update(|t| t.set(ticket_type, next));
    }

    /// The counts as checkout takes them, adults too (so that choosing every seat adult again
    /// is said, not left to mean "as before").
    pub fn ticket_counts(self) -> TicketCounts {
        let mut counts = self.types.get_untracked();
        counts.set(TicketType::Adult, self.type_count(TicketType::Adult));
        counts
    }

    /// The held seats with their types and prices (as the server will price them).
    pub fn held_tickets(self) -> Vec<SoldSeat> {
        let mut counts = self.types.get();
        if !counts.is_empty() {
            counts.set(TicketType::Adult, self.type_count(TicketType::Adult));
        }
        assign_types(&self.held_codes(), &counts, |code, t| {
            self.price_at(code, t)
        })
        .unwrap_or_default()
    }

    /// What the held seats cost at the chosen types.
    pub fn held_total(self) -> crate::domain::Won {
        self.held_tickets().iter().map(|t| t.price).sum()
    }
}
