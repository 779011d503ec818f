//! What to tell a customer about an error, in their language (apart from `error` and `i18n`,
//! which it reads both of, so neither reads the other).

use crate::error::{said, InventoryError};
use crate::i18n::Lang;
use crate::tr;

/// What to tell a customer about an error, in their language.
pub fn error_text(lang: Lang, e: &InventoryError) -> String {
    use InventoryError as E;
    match e {
        E::ShowtimeNotFound(_) => tr!(lang, "error.showtime_not_found"),
        E::HoldNotFound => tr!(lang, "error.hold_not_found"),
        E::NotYourHold => tr!(lang, "error.not_your_hold"),
        E::BookingNotFound => tr!(lang, "error.booking_not_found"),
        E::NotYourBooking => tr!(lang, "error.not_your_booking"),
        E::CancelNeedsLink => tr!(lang, "error.cancel_needs_link"),
        E::TicketNotReady => tr!(lang, "error.ticket_not_ready"),
        E::TicketRefunded => tr!(lang, "error.ticket_refunded"),
        E::InvalidRequest(detail) => tr!(lang, "error.invalid", detail = detail),
        E::UnknownSeats(seats) => tr!(lang, "error.unknown_seats", seats = seats.join(", ")),
        E::SeatsUnavailable(seats) => {
            tr!(lang, "error.unavailable_seats", seats = seats.join(", "))
        }
        E::HoldLapsed => tr!(lang, "error.lapsed"),
        E::LoneSeat(seats) => tr!(lang, "error.lone_seat", seats = seats.join(", ")),
        E::CompanionNeedsWheelchair(count) => {
            tr!(lang, "error.companion_needs_wheelchair", count = count)
        }
        E::NoBlock(why) => tr!(lang, "error.no_block", detail = why.said(lang)),
        E::Invalid(reasons) => said(reasons, lang),
        E::TooLittleTime(_) => tr!(lang, "error.too_little_time"),
        E::SalesClosed => tr!(lang, "error.sales_closed"),
        E::ShowtimeCancelled => tr!(lang, "error.showtime_cancelled"),
        E::SalesNotOpen(at) => match crate::domain::rfc3339::parse(at) {
            Some(at) => tr!(
                lang,
                "error.sales_not_open",
                when = crate::format::showtime_when(lang, at)
            ),
            None => tr!(lang, "error.sales_closed"),
        },
        E::HoldLimit => tr!(lang, "error.hold_limit"),
        E::RecentlyReleased(seconds) => {
            tr!(
                lang,
                "error.recently_released",
                minutes = seconds.div_ceil(60)
            )
        }
        E::AddressLimit => tr!(lang, "error.address_limit"),
        E::PaymentReceived => tr!(lang, "error.payment_received"),
        E::StaffSignInRequired => tr!(lang, "error.staff_sign_in"),
        E::StaffForbidden => tr!(lang, "error.staff_forbidden"),
        E::SignInFailed => tr!(lang, "error.sign_in_failed"),
        E::StaffSessionLocked => tr!(lang, "error.session_locked"),
        E::WrongPin => tr!(lang, "error.wrong_pin"),
        E::ApiTokenNotFound => tr!(lang, "error.api_token_not_found"),
        E::HallNotFound => tr!(lang, "error.hall_not_found"),
        E::HallNameTaken(name) => tr!(lang, "error.hall_name_taken", name = name),
        E::NoOpenShift => tr!(lang, "error.no_open_shift"),
        E::ShiftClosed => tr!(lang, "error.shift_closed"),
        E::ShiftAlreadyOpen(why) | E::NotRefundable(why) | E::TicketTypes(why) => why.said(lang),
        E::ApprovalRequired => tr!(lang, "error.approval_required"),
        E::SignInLocked(seconds) => tr!(lang, "error.sign_in_locked", seconds = seconds),
        E::SignInNotAllowedHere => tr!(lang, "error.sign_in_not_allowed_here"),
        E::ApprovalRefused => tr!(lang, "error.approval_refused"),
        E::RateLimited(seconds) => tr!(lang, "error.rate_limited", seconds = seconds),
        E::Unavailable => tr!(lang, "error.unavailable"),
        E::QueueRequired(_) => tr!(lang, "error.queue_required"),
        E::AdmissionSeatLimit(_) => tr!(lang, "error.admission_seat_limit"),
        E::QueueUnavailable => tr!(lang, "error.queue_unavailable"),
        E::QueueFull => tr!(lang, "error.queue_full"),
        E::ProofRequired { .. } => tr!(lang, "error.proof_required"),
        E::QueueAddressLimit => tr!(lang, "error.queue_address_limit"),
        E::QueuePlaceNotFound => tr!(lang, "error.queue_place_not_found"),
        E::NoWaitingRoom => tr!(lang, "error.no_waiting_room"),
        E::Transport(_) => tr!(lang, "error.network"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_is_said_in_both_languages() {
        for lang in [Lang::En, Lang::Ko] {
            for text in [
                error_text(lang, &InventoryError::Unavailable),
                error_text(lang, &InventoryError::RateLimited(12)),
                error_text(lang, &InventoryError::SalesClosed),
                error_text(lang, &InventoryError::ShowtimeCancelled),
                error_text(
                    lang,
                    &InventoryError::SalesNotOpen("2026-12-01T01:00:00Z".into()),
                ),
                error_text(lang, &InventoryError::HoldLimit),
                error_text(lang, &InventoryError::AddressLimit),
                error_text(lang, &InventoryError::PaymentReceived),
            ] {
                assert!(
                    !text.contains('.') || text.contains(' '),
                    "{lang:?}: untranslated key {text:?}"
                );
                assert!(
                    !text.contains("%{"),
                    "{lang:?}: unfilled argument in {text:?}"
                );
            }
        }
        // A refusal a person can put right, in their language; in English for the REST API.
        let short = InventoryError::invalid(
            "invalid.cash_short",
            &[
                ("tendered_won", "9000".into()),
                ("total_won", "12000".into()),
            ],
        );
        assert_eq!(
            error_text(Lang::Ko, &short),
            "받은 금액(9,000원)이 합계(12,000원)보다 적습니다."
        );
        assert_eq!(
            short.to_string(),
            "Cash tendered (₩9,000) is less than the total (₩12,000)."
        );
        let register = crate::domain::name_problem("invalid.what.register", " ", 40).unwrap();
        assert_eq!(
            error_text(Lang::Ko, &InventoryError::Invalid(vec![register])),
            "창구 이름은 1~40자입니다."
        );
    }
}
