//! A booking paid online has its ticket by e-mail already: a clerk prints it at the counter only
//! with a supervisor's approval, the first print too (a counter sale's first print needs none).

use super::*;
use server::staff::StaffRole;

on_both_backends!(
    a_clerk_prints_an_online_booking_only_with_a_supervisors_approval,
    a_clerk_guessing_a_supervisors_pin_never_slows_another_clerks_approvals,
);

async fn a_clerk_prints_an_online_booking_only_with_a_supervisors_approval(backend: Backend) {
    let shop = shop(backend, "600").await;
    let id = shop.paid_booking(&shop.app.customer(), &["G2"], "{}").await;
    let kim = crate::box_office::member(&shop.app, "kim", StaffRole::Clerk, "1357").await;
    crate::box_office::member(&shop.app, "lee", StaffRole::Supervisor, "2468").await;
    let open = json!({ "register": "R1", "float": 0 });
    let (status, shift) = kim.open_shift(open).await;
    assert_eq!(status, StatusCode::OK, "{shift}");

    let (status, refused) = kim.print_ticket(json!({ "booking": id })).await;
    assert_eq!(
        (status, refused["kind"].as_str()),
        (StatusCode::FORBIDDEN, Some("ApprovalRequired")),
        "{refused}"
    );
    let approved = json!({ "booking": id, "approval": { "supervisor": "lee", "pin": "2468" } });
    let (status, ticket) = kim.print_ticket(approved).await;
    assert_eq!(status, StatusCode::OK, "{ticket}");
    assert_eq!(ticket["reprint"], 0, "the first print, approved");
}

/// One clerk's session, from sixty addresses, tries wrong PINs for a supervisor: her own
/// approvals wait, nobody else's do; and two clerks asking the same supervisor at the same
/// moment with the right PIN are both approved. The control: the guessing clerk's own right PIN
/// is refused while her count waits (the test would catch a count that did not slow anyone). It
/// is sent right after the first counted guess that starts a wait (the sixth: five are free),
/// whose wait is a second long; sent after the sixtieth, it raced the end of whichever wait was
/// running then, and on a loaded machine once came after it.
async fn a_clerk_guessing_a_supervisors_pin_never_slows_another_clerks_approvals(backend: Backend) {
    let shop = shop_with(
        backend,
        "600",
        &[
            ("TRUSTED_PROXIES", "127.0.0.1/32"),
            ("STAFF_LOCK_AFTER", "5"),
        ],
    )
    .await;
    let mut clerks = Vec::new();
    for name in ["kim", "jin", "min"] {
        let clerk = crate::box_office::member(&shop.app, name, StaffRole::Clerk, "1357").await;
        let (status, shift) = clerk
            .open_shift(json!({ "register": format!("R-{name}"), "float": 0 }))
            .await;
        assert_eq!(status, StatusCode::OK, "{shift}");
        clerks.push(clerk);
    }
    crate::box_office::member(&shop.app, "lee", StaffRole::Supervisor, "2468").await;
    let mut bookings = Vec::new();
    for seat in ["C2", "C5", "C8", "D3"] {
        bookings.push(shop.paid_booking(&shop.app.customer(), &[seat], "{}").await);
    }
    let print = |clerk: &reqwest::Client, booking: &str, pin: &str, from: String| {
        let body = json!({ "booking": booking, "approval": { "supervisor": "lee", "pin": pin } });
        clerk
            .post(shop.app.url("/api/print_ticket"))
            .header("x-forwarded-for", from)
            .json(&body)
            .send()
    };
    // Kim's session guesses from sixty addresses.
    for n in 0..60 {
        let r = print(&clerks[0], &bookings[0], "0000", format!("203.0.113.{n}"))
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "guess {n}");
        if n == 5 {
            let control = print(&clerks[0], &bookings[0], "2468", "203.0.113.99".into())
                .await
                .unwrap();
            assert_eq!(
                control.status(),
                StatusCode::FORBIDDEN,
                "her own approvals wait"
            );
        }
    }
    // Jin and Min, at the same moment, with lee's right PIN.
    let (a, b) = tokio::join!(
        print(&clerks[1], &bookings[1], "2468", "198.51.100.1".into()),
        print(&clerks[2], &bookings[2], "2468", "198.51.100.2".into())
    );
    assert_eq!(
        (a.unwrap().status(), b.unwrap().status()),
        (StatusCode::OK, StatusCode::OK),
        "nobody else's approvals are slowed"
    );
}
