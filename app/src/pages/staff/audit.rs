//! `/admin/audit`: the newest staff actions — who, what, when, from where (operators only).

use super::{AdminNav, StaffRefusal};
use crate::domain::{AuditEntry, AuditFact};
use crate::format::{price, showtime_when};
use crate::i18n::{translate, use_lang, Lang};
use crate::serverfns::audit_log;
use crate::tr;
use leptos::prelude::*;

#[component]
pub fn AuditPage() -> impl IntoView {
    let lang = use_lang();
    let lines = crate::codec::resource(|| (), |_| audit_log());
    view! {
        <section class="audit-page" data-test="audit-page">
            <h1>{move || tr!(lang.get(), "audit.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match lines.await {
                        Ok(lines) => view! {
                            <AdminNav />
                            <table class="audit" data-test="audit-table">
                                <thead>
                                    <tr>
                                        <th scope="col">{move || tr!(lang.get(), "audit.when")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.who")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.action")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.detail")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.address")}</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {lines.into_iter().map(|line| {
                                        let at = line.at;
                                        let action = line.action.clone();
                                        let said = line.clone();
                                        let named = action.clone();
                                        view! {
                                            <tr data-test="audit-row" data-action=action>
                                                <td>{move || showtime_when(lang.get(), at)}</td>
                                                <td>{line.staff_name}</td>
                                                <td>{move || action_name(lang.get(), &named)}</td>
                                                <td data-test="audit-detail">{move || detail_text(lang.get(), &said)}</td>
                                                <td>{line.address.unwrap_or_default()}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                        Err(error) => view! { <StaffRefusal error=error here="/admin/audit" /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// An action's name in `lang` (one the locale does not know: as it was written).
pub fn action_name(lang: Lang, action: &str) -> String {
    let key = format!("audit.action.{action}");
    let said = translate(lang, &key, &[]);
    // rust-i18n answers an unknown key with the key (after the language).
    if said.ends_with(&key) {
        action.to_string()
    } else {
        said
    }
}

/// What a line says beyond its action, in `lang`: its facts, or (a line written before facts
/// were kept) its English detail as written.
pub fn detail_text(lang: Lang, line: &AuditEntry) -> String {
    if line.facts.is_empty() {
        return line.detail.clone();
    }
    line.facts
        .iter()
        .map(|f| fact_text(lang, f))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn when(lang: Lang, at: &str) -> String {
    crate::domain::rfc3339::parse(at).map_or_else(|| at.to_string(), |t| showtime_when(lang, t))
}

/// One fact in `lang`.
pub fn fact_text(lang: Lang, fact: &AuditFact) -> String {
    use AuditFact as F;
    let t = |key: &str, args: &[(&str, String)]| translate(lang, key, args);
    let seats = |list: &[String]| crate::domain::seats_text(&crate::seating::reading_order(list));
    match fact {
        F::Showtime(id) => t("audit.fact.showtime", &[("id", id.to_string())]),
        F::Hall(id) => t("audit.fact.hall", &[("id", id.to_string())]),
        F::HallName(name) | F::Title(name) | F::TokenName(name) | F::Member(name) => name.clone(),
        F::SeatCount(n) => t("audit.fact.seat_count", &[("count", n.to_string())]),
        F::StartsAt(at) => t("audit.fact.starts_at", &[("when", when(lang, at))]),
        F::Minutes(n) => t("audit.fact.minutes", &[("minutes", n.to_string())]),
        F::OnSaleFrom(at) => t("audit.fact.on_sale_from", &[("when", when(lang, at))]),
        F::OnSaleUntil(at) => t("audit.fact.on_sale_until", &[("when", when(lang, at))]),
        F::HotSale => t("audit.fact.hot_sale", &[]),
        F::Prices(list) => {
            let prices: Vec<String> = list
                .iter()
                .map(|(code, amount)| format!("{code} {}", price(lang, *amount)))
                .collect();
            t("audit.fact.prices", &[("prices", prices.join(", "))])
        }
        F::Seats(list) => t("audit.fact.seats", &[("seats", seats(list))]),
        F::ForSeats(list) => t("audit.fact.for_seats", &[("seats", seats(list))]),
        F::AllSeats => t("audit.fact.all_seats", &[]),
        F::SeatsMade(status) => match status.as_str() {
            "HOUSE" => t("audit.fact.made_house", &[]),
            "KILLED" => t("audit.fact.made_killed", &[]),
            "AVAILABLE" => t("audit.fact.made_on_sale", &[]),
            other => other.to_string(),
        },
        F::HoldsReleased(n) => t("audit.fact.holds_released", &[("count", n.to_string())]),
        F::RefundsDue(n) => t("audit.fact.refunds_due", &[("count", n.to_string())]),
        F::OwedBack(n) => t("audit.fact.owed_back", &[("count", n.to_string())]),
        F::WaitingRoom {
            on,
            paused,
            max_active,
            per_minute,
            drawn,
            proof_bits,
        } => {
            let mut parts = vec![t(
                if *on {
                    "audit.fact.room_on"
                } else {
                    "audit.fact.room_off"
                },
                &[],
            )];
            if *paused {
                parts.push(t("audit.fact.room_paused", &[]));
            }
            parts.push(t(
                "audit.fact.room_limits",
                &[
                    ("inside", max_active.to_string()),
                    ("rate", per_minute.to_string()),
                ],
            ));
            if *drawn {
                parts.push(t("audit.fact.room_drawn", &[]));
            }
            if *proof_bits > 0 {
                parts.push(t(
                    "audit.fact.room_proof",
                    &[("bits", proof_bits.to_string())],
                ));
            }
            parts.join(", ")
        }
        F::Booking(id) => {
            let number = uuid::Uuid::parse_str(id)
                .map(|u| crate::domain::BookingId(u).reference())
                .unwrap_or_else(|_| id.clone());
            t("audit.fact.booking", &[("number", number)])
        }
        F::Shift(id) => t("audit.fact.shift", &[("id", id.to_string())]),
        F::Register(name) => t("audit.fact.register", &[("name", name.clone())]),
        F::Float(amount) => t("audit.fact.float", &[("amount", price(lang, *amount))]),
        F::Clerk(name) => t("audit.fact.clerk", &[("name", name.clone())]),
        F::ExpectedCash(amount) => t(
            "audit.fact.expected_cash",
            &[("amount", price(lang, *amount))],
        ),
        F::Counted(amount) => t("audit.fact.counted", &[("amount", price(lang, *amount))]),
        F::Variance(amount) => t(
            "audit.fact.variance",
            &[("amount", crate::format::signed_price(lang, *amount))],
        ),
        F::Tender(how) => match how.as_str() {
            "cash" => t("kiosk.cash", &[]),
            "card" => t("kiosk.card", &[]),
            "comp" => t("kiosk.comp", &[]),
            "gateway" => t("audit.fact.gateway", &[]),
            other => other.to_string(),
        },
        F::Amount(amount) => price(lang, *amount),
        F::ApprovedBy(name) => t("audit.fact.approved_by", &[("name", name.clone())]),
        F::Reprint(n) => t("audit.fact.reprint", &[("n", n.to_string())]),
        F::Token(id) => t("audit.fact.token", &[("id", id.to_string())]),
        F::Role(role) => super::role_name(lang, *role),
        F::PinRemoved => t("audit.fact.pin_removed", &[]),
        F::SessionsEnded(n) => t("audit.fact.sessions_ended", &[("count", n.to_string())]),
        F::WrongPassword => t("audit.fact.wrong_password", &[]),
        F::WrongPin => t("audit.fact.wrong_pin", &[]),
        F::WrongPinSessionEnded(n) => t(
            "audit.fact.wrong_pin_session_ended",
            &[("count", n.to_string())],
        ),
        F::TooManyFailures(seconds) => t(
            "audit.fact.too_many_failures",
            &[("seconds", seconds.to_string())],
        ),
        F::NotAccepted(name) => t("audit.fact.not_accepted", &[("name", name.clone())]),
        F::FirstAccount => t("audit.fact.first_account", &[]),
        F::ByCommand => t("audit.fact.by_command", &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every action the server writes and every fact is said in Korean from the locale.
    #[test]
    fn every_action_and_fact_is_said_in_korean() {
        let korean = |s: &str| s.chars().any(|c| ('가'..='힣').contains(&c));
        for action in [
            "api_token_created",
            "api_token_revoked",
            "approval_failed",
            "counter_exchange",
            "counter_refund",
            "counter_sale",
            "hall_created",
            "password_change_failed",
            "password_changed",
            "pin_reset",
            "pin_set",
            "pin_set_failed",
            "seats_blocked",
            "session_locked",
            "session_unlocked",
            "shift_closed",
            "shift_opened",
            "showtime_cancelled",
            "showtime_scheduled",
            "sign_in",
            "sign_in_failed",
            "sign_in_refused",
            "sign_out",
            "signed_out_everywhere",
            "staff_added",
            "address_searched",
            "staff_disabled",
            "ticket_printed",
            "ticket_reprinted",
            "ticket_resent",
            "unlock_failed",
            "unlock_refused",
            "waiting_room_reset",
            "waiting_room_set",
            "unlocked",
        ] {
            let said = action_name(Lang::Ko, action);
            assert!(korean(&said), "{action}: {said}");
        }
        assert_eq!(action_name(Lang::Ko, "a_new_action"), "a_new_action");
        use AuditFact as F;
        let at = "2026-12-01T01:30:00Z".to_string();
        for fact in [
            F::Showtime(1),
            F::Hall(1),
            F::SeatCount(3),
            F::StartsAt(at.clone()),
            F::Minutes(90),
            F::OnSaleFrom(at.clone()),
            F::OnSaleUntil(at),
            F::HotSale,
            F::Prices(vec![("VIP".into(), crate::domain::Won::new(20_000))]),
            F::Seats(vec!["A1".into()]),
            F::ForSeats(vec!["A2".into()]),
            F::AllSeats,
            F::SeatsMade("HOUSE".into()),
            F::SeatsMade("KILLED".into()),
            F::SeatsMade("AVAILABLE".into()),
            F::HoldsReleased(1),
            F::RefundsDue(1),
            F::OwedBack(1),
            F::WaitingRoom {
                on: true,
                paused: true,
                max_active: 5,
                per_minute: 5,
                drawn: true,
                proof_bits: 8,
            },
            F::Booking("21d6b008-0000-4000-8000-000000000000".into()),
            F::Shift(1),
            F::Register("R1".into()),
            F::Float(crate::domain::Won::new(1)),
            F::Clerk("kim".into()),
            F::ExpectedCash(crate::domain::Won::new(1)),
            F::Counted(crate::domain::Won::new(1)),
            F::Variance(crate::domain::Won::new(-1)),
            F::Tender("cash".into()),
            F::Amount(crate::domain::Won::new(1)),
            F::ApprovedBy("lee".into()),
            F::Reprint(1),
            F::Token(1),
            F::Role(crate::domain::StaffRole::Clerk),
            F::PinRemoved,
            F::SessionsEnded(1),
            F::WrongPassword,
            F::WrongPin,
            F::WrongPinSessionEnded(3),
            F::TooManyFailures(9),
            F::NotAccepted("lee".into()),
            F::FirstAccount,
            F::ByCommand,
        ] {
            let said = fact_text(Lang::Ko, &fact);
            assert!(korean(&said) && !said.contains("%{"), "{fact:?}: {said}");
        }
        assert_eq!(
            fact_text(
                Lang::En,
                &F::Booking("21d6b008-0000-4000-8000-000000000000".into())
            ),
            "booking 21D6B008"
        );
    }
}
