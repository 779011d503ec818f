use super::*;
use crate::domain::{BookingId, Won};

fn booking(status: &str, payment: &str, cancelled: bool) -> BookingView {
    let at = chrono::DateTime::from_timestamp(1_900_000_000, 0).unwrap();
    BookingView {
        booking_id: BookingId(uuid::Uuid::nil()),
        reference: String::new(),
        email: None,
        status: status.into(),
        showtime_id: ShowtimeId::parse("1").unwrap(),
        movie_title: String::new(),
        hall_name: String::new(),
        starts_at: at,
        seats: vec!["A1".into()],
        tickets: vec![],
        amount: Won::new(1),
        refunded: Won::ZERO,
        refunded_seats: vec![],
        given_back: vec![],
        currency: "KRW".into(),
        failure_reason: None,
        created_at: at,
        updated_at: at,
        payments: (!payment.is_empty())
            .then(|| PaymentView {
                status: payment.into(),
                amount: Won::new(1),
                payment_url: None,
                pay_before: at,
                updated_at: at,
            })
            .into_iter()
            .collect(),
        ticket_issued_at: Some(at),
        showtime_cancelled: cancelled,
        refunded_at: None,
        cancel_until: None,
        can_cancel: false,
        cancel_needs_link: false,
    }
}

#[test]
fn a_cancelled_showtime_s_booking_is_cancelled_not_confirmed() {
    assert_eq!(
        booking("CONFIRMED", "PAID", false).state(),
        BookingState::Confirmed
    );
    assert_eq!(
        booking("CONFIRMED", "PAID", true).state(),
        BookingState::CancelledRefunding
    );
    assert_eq!(
        booking("CONFIRMED", "REFUNDED", true).state(),
        BookingState::CancelledRefunded
    );
    assert_eq!(
        booking("CONFIRMED", "", true).state(),
        BookingState::Cancelled
    );
    assert_eq!(booking("FAILED", "", true).state(), BookingState::Failed);
    let mut counter = booking("CONFIRMED", "", false);
    counter.refunded_at = counter.ticket_issued_at;
    assert_eq!(counter.state(), BookingState::Refunded);
}
