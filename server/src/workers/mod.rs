//! Background work of a server process, started together and stopped together: the sweeper and
//! housekeeping (`sweeper`), the waiting rooms' admissions (`waiting_room`), the confirmation, refund and reconciliation workers (`payments`),
//! customers' e-mail (`mail`), and the outbox relay with, under Kafka, the consumers (`relay`). Every loop is safe with
//! several processes running it at once. Stopping ends every loop at its next wait (a
//! transaction in flight rolls back; the outbox delivers at least once) and gives the relay's
//! lease up, so a standby takes over at once.

pub mod mail;
pub mod payments;
pub mod relay;
pub mod sweeper;
pub mod waiting_room;

use crate::config::Config;
use crate::engine::Engine;
use relay::{Relay, Work};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub struct Workers {
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
    relay: Arc<Relay>,
}

impl Workers {
    /// Starts every loop of this process.
    pub async fn start(engine: &Arc<Engine>, config: &Config) -> anyhow::Result<Self> {
        let (relay, relay_work) = relay::start(engine, config).await?;
        let mut workers = Self {
            stop: watch::channel(false).0,
            tasks: Vec::new(),
            relay,
        };
        workers.run(Box::pin(sweeper::sweeper(
            engine.clone(),
            config.sales.sweep_interval,
        )));
        workers.run(Box::pin(sweeper::housekeeping(engine.clone())));
        workers.run(Box::pin(waiting_room::admissions(engine.clone())));
        workers.run(Box::pin(payments::confirmations(engine.clone())));
        workers.run(Box::pin(mail::deliveries(engine.clone())));
        workers.run(Box::pin(payments::refunds(engine.clone())));
        workers.run(Box::pin(payments::reconciliation(
            engine.clone(),
            config.payments.reconcile_interval,
            config.payments.reconcile_after,
        )));
        for work in relay_work {
            workers.run(work);
        }
        Ok(workers)
    }

    fn run(&mut self, work: Work) {
        let mut stop = self.stop.subscribe();
        self.tasks.push(tokio::spawn(async move {
            tokio::select! {
                _ = work => {}
                _ = async { let _ = stop.wait_for(|stopped| *stopped).await; } => {}
            }
        }));
    }

    /// Ends every loop (waiting at most 10 s in all) and gives the relay's lease up.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let all = futures_util::future::join_all(self.tasks);
        if tokio::time::timeout(Duration::from_secs(10), all)
            .await
            .is_err()
        {
            tracing::warn!("background work did not stop within 10 s");
        }
        self.relay.stop().await;
    }
}
