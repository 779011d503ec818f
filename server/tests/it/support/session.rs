//! A browser's session with a test server: its own cookie jar, and a method for each server
//! function the tests call, named as the function (`POST /api/{name}`, a JSON body in, the
//! status and the JSON answer out). The body stays JSON: tests send what no typed client
//! would, to see it refused.

use serde_json::Value;

/// What a server function answered: its status and its JSON body (`null` when it had none).
pub type Answer = (reqwest::StatusCode, Value);

/// A client of one test server with a cookie jar of its own: one customer, or one staff member
/// once signed in. It is a `reqwest::Client` too, for the REST API and the pages.
#[derive(Clone)]
pub struct Session {
    http: reqwest::Client,
    base: String,
}

impl std::ops::Deref for Session {
    type Target = reqwest::Client;
    fn deref(&self) -> &reqwest::Client {
        &self.http
    }
}

impl Session {
    /// A new session (an empty cookie jar) with the server at `base`.
    pub fn new(base: &str) -> Self {
        Self {
            http: reqwest::Client::builder()
                .cookie_store(true)
                .build()
                .unwrap(),
            base: base.to_string(),
        }
    }

    /// Server function `function` with `body`.
    pub async fn call(&self, function: &str, body: Value) -> Answer {
        let r = self
            .http
            .post(format!("{}/api/{function}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    // The customer's server functions.
    pub async fn hold_seats(&self, body: Value) -> Answer {
        self.call("hold_seats", body).await
    }

    pub async fn hold_best(&self, body: Value) -> Answer {
        self.call("hold_best", body).await
    }

    pub async fn cancel_hold(&self, body: Value) -> Answer {
        self.call("cancel_hold", body).await
    }

    pub async fn join_queue(&self, body: Value) -> Answer {
        self.call("join_queue", body).await
    }

    pub async fn get_ticket(&self, body: Value) -> Answer {
        self.call("get_ticket", body).await
    }

    // The staff session's server functions.
    pub async fn staff_me(&self, body: Value) -> Answer {
        self.call("staff_me", body).await
    }

    pub async fn staff_whoami(&self, body: Value) -> Answer {
        self.call("staff_whoami", body).await
    }

    pub async fn staff_sign_out(&self, body: Value) -> Answer {
        self.call("staff_sign_out", body).await
    }

    pub async fn staff_change_password(&self, body: Value) -> Answer {
        self.call("staff_change_password", body).await
    }

    pub async fn staff_set_pin(&self, body: Value) -> Answer {
        self.call("staff_set_pin", body).await
    }

    pub async fn staff_reset_pin(&self, body: Value) -> Answer {
        self.call("staff_reset_pin", body).await
    }

    pub async fn staff_lock(&self, body: Value) -> Answer {
        self.call("staff_lock", body).await
    }

    pub async fn staff_unlock(&self, body: Value) -> Answer {
        self.call("staff_unlock", body).await
    }

    pub async fn staff_accounts(&self, body: Value) -> Answer {
        self.call("staff_accounts", body).await
    }

    pub async fn approvers(&self, body: Value) -> Answer {
        self.call("approvers", body).await
    }

    pub async fn audit_log(&self, body: Value) -> Answer {
        self.call("audit_log", body).await
    }

    // The console's server functions.
    pub async fn halls(&self, body: Value) -> Answer {
        self.call("halls", body).await
    }

    pub async fn import_hall(&self, body: Value) -> Answer {
        self.call("import_hall", body).await
    }

    pub async fn export_hall(&self, body: Value) -> Answer {
        self.call("export_hall", body).await
    }

    pub async fn schedule_showtime(&self, body: Value) -> Answer {
        self.call("schedule_showtime", body).await
    }

    pub async fn cancel_showtime(&self, body: Value) -> Answer {
        self.call("cancel_showtime", body).await
    }

    pub async fn block_seats(&self, body: Value) -> Answer {
        self.call("block_seats", body).await
    }

    pub async fn showtime_figures(&self, body: Value) -> Answer {
        self.call("showtime_figures", body).await
    }

    pub async fn sales_figures(&self, body: Value) -> Answer {
        self.call("sales_figures", body).await
    }

    pub async fn find_booking(&self, body: Value) -> Answer {
        self.call("find_booking", body).await
    }

    pub async fn resend_ticket(&self, body: Value) -> Answer {
        self.call("resend_ticket", body).await
    }

    pub async fn refunds_owed(&self, body: Value) -> Answer {
        self.call("refunds_owed", body).await
    }

    pub async fn waiting_room(&self, body: Value) -> Answer {
        self.call("waiting_room", body).await
    }

    pub async fn set_waiting_room(&self, body: Value) -> Answer {
        self.call("set_waiting_room", body).await
    }

    // The box office's and the door's server functions.
    pub async fn open_shift(&self, body: Value) -> Answer {
        self.call("open_shift", body).await
    }

    pub async fn close_shift(&self, body: Value) -> Answer {
        self.call("close_shift", body).await
    }

    pub async fn box_office_shift(&self, body: Value) -> Answer {
        self.call("box_office_shift", body).await
    }

    pub async fn clerk_hold(&self, body: Value) -> Answer {
        self.call("clerk_hold", body).await
    }

    pub async fn clerk_release(&self, body: Value) -> Answer {
        self.call("clerk_release", body).await
    }

    pub async fn sell_at_counter(&self, body: Value) -> Answer {
        self.call("sell_at_counter", body).await
    }

    pub async fn refund_at_counter(&self, body: Value) -> Answer {
        self.call("refund_at_counter", body).await
    }

    pub async fn exchange_at_counter(&self, body: Value) -> Answer {
        self.call("exchange_at_counter", body).await
    }

    pub async fn print_ticket(&self, body: Value) -> Answer {
        self.call("print_ticket", body).await
    }

    pub async fn check_in_ticket(&self, body: Value) -> Answer {
        self.call("check_in_ticket", body).await
    }
}
