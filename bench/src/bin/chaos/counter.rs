//! The clerk in the chaos sale: at the box office through the balancer, like the kiosk's page —
//! signed in as `chaos-clerk` (`CHAOS_CLERK_PASSWORD`; `chaos.sh` adds the account), a shift
//! open, then two of the best seats of the busy showtime held and sold for cash, again and
//! again. Each sale's booking goes to `counter.txt` for the checker.

use super::Sale;
use rand::Rng;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Sells until the sale stops; the bookings sold.
pub async fn clerk(sale: Sale, showtime: i64, sold: Arc<Mutex<Vec<String>>>) {
    let Ok(password) = std::env::var("CHAOS_CLERK_PASSWORD") else {
        return;
    };
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .expect("client");
    let base = sale.base.clone();
    let call =
        |name: &str, body: serde_json::Value| client.post(format!("{base}/api/{name}")).json(&body);
    let mut signed_in = false;
    let mut shift_open = false;
    while !sale.stopped() {
        let pause = rand::rng().random_range(1000..3000);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        if !signed_in {
            let body = json!({ "name": "chaos-clerk", "password": password });
            signed_in = matches!(
                sale.send("POST /api/staff_sign_in", call("staff_sign_in", body))
                    .await,
                Some((200, _))
            );
            continue;
        }
        if !shift_open {
            let body = json!({ "register": "CHAOS", "float": 0 });
            shift_open = match sale
                .send("POST /api/open_shift", call("open_shift", body))
                .await
            {
                Some((200, _)) => true,
                Some((_, body)) => body["kind"] == "ShiftAlreadyOpen",
                None => false,
            };
            continue;
        }
        let pick = json!({ "showtime_id": showtime, "best": { "count": 2 } });
        let hold = match sale
            .send("POST /api/clerk_hold", call("clerk_hold", pick))
            .await
        {
            Some((200, hold)) => hold,
            Some((401, _)) => {
                signed_in = false;
                continue;
            }
            Some((_, body)) if body["kind"] == "NoOpenShift" => {
                shift_open = false;
                continue;
            }
            _ => continue,
        };
        let sell = json!({ "sale": {
            "holdId": hold["holdId"], "tender": "cash", "tendered": 1_000_000
        }});
        if let Some((200, receipt)) = sale
            .send("POST /api/sell_at_counter", call("sell_at_counter", sell))
            .await
        {
            if let Some(booking) = receipt["bookingId"].as_str() {
                sold.lock().unwrap().push(booking.to_string());
            }
        }
    }
}
