//! Check-in at the door: what a scan came to.

use super::*;

/// The answer of `CHECK_IN`, else `FIRST_SCAN`, with the seats in.
pub(super) fn scanned(
    admitted: Vec<String>,
    first: Option<(At, String)>,
    inside: i64,
) -> Result<Scanned, StoreError> {
    match (admitted.is_empty(), first) {
        (false, _) => Ok(Scanned::CheckedIn { admitted, inside }),
        (true, Some((at, gate))) => Ok(Scanned::Already(at.0, gate, inside)),
        (true, None) => Err(StoreError::Corrupt(
            "a check-in neither inserted nor found".into(),
        )),
    }
}
