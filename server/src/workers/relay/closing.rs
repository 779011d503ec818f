//! Closing a Kafka client without blocking the thread that drops it.

/// A member of a consumer group that is closed on a thread of its own when dropped. Closing a
/// member waits until the broker has let it leave the group, and with the broker gone rdkafka
/// waits for ever: dropped on a runtime's thread (a server shutting down, a test's runtime
/// ending after its broker), it would hang that thread.
pub(super) struct Detached<T: Send + 'static>(Option<T>);

impl<T: Send + 'static> Detached<T> {
    pub(super) fn new(client: T) -> Self {
        Self(Some(client))
    }

    /// Closes the client off this thread; the answer comes when it is closed.
    pub(super) fn close(mut self) -> tokio::sync::oneshot::Receiver<()> {
        let (done, closed) = tokio::sync::oneshot::channel();
        let client = self.0.take();
        let closing = std::thread::Builder::new()
            .name("kafka-close".into())
            .spawn(move || {
                drop(client);
                let _ = done.send(());
            });
        if let Err(e) = closing {
            tracing::warn!(error = %e, "no thread to close a Kafka client on");
        }
        closed
    }
}

impl<T: Send + 'static> std::ops::Deref for Detached<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_ref().expect("a client until dropped")
    }
}

impl<T: Send + 'static> Drop for Detached<T> {
    fn drop(&mut self) {
        if self.0.is_some() {
            drop(Self(self.0.take()).close());
        }
    }
}
