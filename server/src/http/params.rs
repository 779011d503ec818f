//! Ids in the path, parsed before a handler runs: a handler takes `Id<ShowtimeId>` or
//! `Id<HoldId>` and never sees the raw text. A segment that is not an id is a 400 naming it; a
//! well-formed UUID that no hold of ours can have is a 404, as an unknown hold.

use super::error::ApiError;
use app::domain::{HoldId, ShowtimeId};
use app::error::InventoryError;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

/// An id read from the route's one path parameter.
pub struct Id<T>(pub T);

/// An id that can be read from a path segment.
pub trait PathId: Sized {
    fn from_segment(raw: &str) -> Result<Self, ApiError>;
}

impl PathId for ShowtimeId {
    fn from_segment(raw: &str) -> Result<Self, ApiError> {
        ShowtimeId::parse(raw).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "showtime id must be a positive whole number, not {raw:?}"
            ))
        })
    }
}

impl PathId for HoldId {
    fn from_segment(raw: &str) -> Result<Self, ApiError> {
        HoldId::parse(raw).ok_or_else(|| match uuid::Uuid::try_parse(raw) {
            Ok(_) => InventoryError::HoldNotFound.into(),
            Err(_) => ApiError::BadRequest(format!("hold id must be a UUID, not {raw:?}")),
        })
    }
}

impl<S: Send + Sync, T: PathId> FromRequestParts<S> for Id<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::BadRequest(e.body_text()))?;
        T::from_segment(&raw).map(Id)
    }
}
