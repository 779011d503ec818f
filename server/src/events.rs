//! The in-process event bus of the live seat map: one broadcast channel per showtime that has
//! viewers. The engine publishes after its transaction has committed (the store returns only
//! then), so a rolled-back change is never announced. Channels are bounded: a viewer that falls
//! behind is told it lagged and is disconnected (it reconnects and gets a fresh snapshot) instead
//! of letting the server buffer for it.

use app::domain::{LiveMessage, ShowtimeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Messages buffered per showtime before a slow viewer counts as lagging.
const CHANNEL_CAPACITY: usize = 256;

#[derive(Default)]
pub struct EventBus {
    channels: Mutex<HashMap<ShowtimeId, broadcast::Sender<Arc<LiveMessage>>>>,
}

impl EventBus {
    pub fn subscribe(&self, showtime: ShowtimeId) -> broadcast::Receiver<Arc<LiveMessage>> {
        let mut channels = self.channels.lock().expect("bus lock");
        channels
            .entry(showtime)
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe()
    }

    /// Delivers to the showtime's current viewers; forgets the channel when nobody watches.
    pub fn publish(&self, showtime: ShowtimeId, message: LiveMessage) {
        let mut channels = self.channels.lock().expect("bus lock");
        if let Some(sender) = channels.get(&showtime) {
            if sender.send(Arc::new(message)).is_err() {
                channels.remove(&showtime);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn viewers_of_a_showtime_get_its_messages_and_no_others() {
        let bus = EventBus::default();
        let mut seven = bus.subscribe(ShowtimeId(7));
        let mut eight = bus.subscribe(ShowtimeId(8));
        bus.publish(ShowtimeId(7), LiveMessage::Ping);
        assert_eq!(*seven.recv().await.unwrap(), LiveMessage::Ping);
        assert!(eight.try_recv().is_err());
    }

    #[tokio::test]
    async fn a_viewer_that_falls_behind_is_told_it_lagged() {
        let bus = EventBus::default();
        let mut slow = bus.subscribe(ShowtimeId(1));
        for _ in 0..CHANNEL_CAPACITY + 10 {
            bus.publish(ShowtimeId(1), LiveMessage::Ping);
        }
        assert!(matches!(
            slow.recv().await,
            Err(broadcast::error::RecvError::Lagged(_))
        ));
    }
}
