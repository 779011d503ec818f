//! The waiting room of a hot sale: customers join and ask for their place; operators run it.
//! Each method has the name of the server function that calls it.

use super::Actor;
use crate::domain::{
    CustomerId, QueuePlace, QueueProof, ShowtimeId, WaitingRoomSettings, WaitingRoomView,
};
use crate::error::InventoryError;
use std::net::IpAddr;

#[async_trait::async_trait]
pub trait WaitingRooms: Send + Sync + 'static {
    /// Joins the showtime's queue (again: the same place). 409 `NO_WAITING_ROOM` when it has
    /// none now; 403 `PROOF_REQUIRED` (with a challenge) when the room asks a proof of work for
    /// a new place and `proof` is none or does not solve it.
    async fn join_queue(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        address: Option<IpAddr>,
        proof: Option<QueueProof>,
    ) -> Result<QueuePlace, InventoryError>;
    /// The customer's place (by `ticket`, or the session's): `None` when the room is off.
    async fn queue_place(
        &self,
        showtime: ShowtimeId,
        ticket: Option<&str>,
        customer: CustomerId,
    ) -> Result<Option<QueuePlace>, InventoryError>;
    /// The room's settings and figures.
    async fn waiting_room(&self, showtime: ShowtimeId) -> Result<WaitingRoomView, InventoryError>;
    /// Turns the room on or off, pauses it, sets its rates and message.
    async fn set_waiting_room(
        &self,
        showtime: ShowtimeId,
        settings: &WaitingRoomSettings,
        by: &Actor,
    ) -> Result<WaitingRoomView, InventoryError>;
    /// Empties the room: every place and admission ends; those waiting join again.
    async fn reset_waiting_room(
        &self,
        showtime: ShowtimeId,
        by: &Actor,
    ) -> Result<WaitingRoomView, InventoryError>;
}
