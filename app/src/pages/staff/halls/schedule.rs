//! The scheduling form's prices: what the operator typed that differs from the hall's.

use crate::domain::{PriceCategory, TicketPrices, TicketType, Won};
use std::collections::BTreeMap;

/// The categories' prices and the ticket types' prices typed unlike the hall's (`typed`: by
/// category code, and by `CODE/TYPE`), for a showtime that sells none of `unsold`. A text that
/// is no price is sent as -1, which the server refuses by name; the prices of types not sold
/// stay unsaid.
pub(super) fn prices_typed(
    categories: &[PriceCategory],
    typed: &BTreeMap<String, String>,
    unsold: &[TicketType],
) -> (
    BTreeMap<String, Won>,
    Option<BTreeMap<String, TicketPrices>>,
) {
    let changed = |text: Option<&String>, hall: Won| {
        let price = Won::parse(text?).unwrap_or(Won::new(-1));
        (price != hall).then_some(price)
    };
    let mut ticket_prices = BTreeMap::<String, TicketPrices>::new();
    for c in categories {
        for (t, hall) in c.ticket_prices.iter().filter(|(t, _)| !unsold.contains(t)) {
            if let Some(price) = changed(typed.get(&format!("{}/{}", c.code, t.as_str())), hall) {
                ticket_prices
                    .entry(c.code.clone())
                    .or_default()
                    .set(t, price);
            }
        }
    }
    let prices = categories
        .iter()
        .filter_map(|c| Some(c.code.clone()).zip(changed(typed.get(&c.code), c.price)))
        .collect();
    (prices, (!ticket_prices.is_empty()).then_some(ticket_prices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_differs_from_the_hall_and_is_sold_is_sent() {
        let category = |code: &str, price: i64, youth: i64| PriceCategory {
            code: code.into(),
            name: code.into(),
            price: Won::new(price),
            ticket_prices: TicketPrices {
                youth: Some(Won::new(youth)),
                senior: Some(Won::new(6_000)),
                ..Default::default()
            },
        };
        let hall = [
            category("STANDARD", 11_000, 8_000),
            category("VIP", 20_000, 15_000),
        ];
        let typed: BTreeMap<String, String> = [
            ("VIP", "24000"),
            ("STANDARD", "11000"),
            ("VIP/YOUTH", "16000"),
            ("STANDARD/YOUTH", "8000"),
            ("STANDARD/SENIOR", "5000"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (prices, types) = prices_typed(&hall, &typed, &[TicketType::Senior]);
        assert_eq!(
            prices,
            BTreeMap::from([("VIP".to_string(), Won::new(24_000))])
        );
        let types = types.expect("a youth price changed");
        assert_eq!(types.len(), 1);
        assert_eq!(types["VIP"].get(TicketType::Youth), Some(Won::new(16_000)));
        assert_eq!(types["VIP"].get(TicketType::Senior), None);
        // Nothing typed: nothing sent; a text that is no price: -1, for the server to refuse.
        assert_eq!(
            prices_typed(&hall, &BTreeMap::new(), &[]),
            (BTreeMap::new(), None)
        );
        let wrong = BTreeMap::from([("VIP/YOUTH".to_string(), "16k".to_string())]);
        let (_, types) = prices_typed(&hall, &wrong, &[]);
        assert_eq!(types.unwrap()["VIP"].youth, Some(Won::new(-1)));
    }
}
