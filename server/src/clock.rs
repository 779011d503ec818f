//! The one clock. In production every hold and expiry time comes from the
//! database's clock: statements receive `None` and use `now()`. Tests inject a manual clock
//! they can move; then every statement receives that time instead.

use chrono::{DateTime, Utc};
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug, Default)]
pub enum Clock {
    #[default]
    Database,
    Manual(Arc<Mutex<DateTime<Utc>>>),
}

impl Clock {
    pub fn manual(start: DateTime<Utc>) -> Self {
        Self::Manual(Arc::new(Mutex::new(start)))
    }

    /// The time to pass to the store; `None` means "use the database's clock".
    pub fn now(&self) -> Option<DateTime<Utc>> {
        match self {
            Self::Database => None,
            Self::Manual(t) => Some(*t.lock().expect("clock lock")),
        }
    }

    /// Moves a manual clock forward; does nothing to the database clock.
    pub fn advance(&self, by: chrono::Duration) {
        if let Self::Manual(t) = self {
            *t.lock().expect("clock lock") += by;
        }
    }
}
