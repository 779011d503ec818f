//! Recording a payment report, after the dialect's own update of the payment: written once over
//! the dialect's steps (`ReportSteps`), which `report_steps!` implements alike for both but the
//! outbox append.

use super::*;

/// A dialect's payment-report transaction.
pub(super) trait ReportSteps: Send + Sized {
    /// Whether the gateway's session is a payment of ours.
    async fn payment_known(&mut self, session_id: &str) -> Result<bool, StoreError>;
    /// Records that the charge did not match what the session asked for.
    async fn set_mismatch(&mut self, session_id: &str, mismatch: &str) -> Result<(), StoreError>;
    async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError>;
    async fn commit(self) -> Result<(), StoreError>;
}

/// The steps whose statements both dialects run alike, for a newtype over the dialect's
/// transaction (`self.0`).
macro_rules! report_steps {
    () => {
        async fn payment_known(&mut self, session_id: &str) -> Result<bool, StoreError> {
            let known: Option<i32> = sqlx::query_scalar(PAYMENT_KNOWN)
                .bind(session_id)
                .fetch_optional(&mut *self.0)
                .await?;
            Ok(known.is_some())
        }

        async fn set_mismatch(
            &mut self,
            session_id: &str,
            mismatch: &str,
        ) -> Result<(), StoreError> {
            sqlx::query(SET_MISMATCH)
                .bind(session_id)
                .bind(mismatch)
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError> {
            append_event(&mut self.0, event).await
        }

        async fn commit(self) -> Result<(), StoreError> {
            Ok(self.0.commit().await?)
        }
    };
}

/// The rest of recording `report` (see [`Payments::record_payment_report`]): `recorded` is what
/// the dialect's update returned (`None`: the report changed nothing); a charge that does not
/// match is recorded as such, and a paid one writes `PaymentSucceeded` for the settlement.
pub(super) async fn finish_report<T: ReportSteps>(
    mut tx: T,
    report: &PaymentReport,
    recorded: Option<Recorded>,
) -> Result<ReportOutcome, StoreError> {
    let Some(recorded) = recorded else {
        let known = tx.payment_known(&report.session_id).await?;
        return Ok(ReportOutcome::unrecorded(known));
    };
    let mismatch = recorded.mismatch(report);
    if let Some(mismatch) = &mismatch {
        tx.set_mismatch(&report.session_id, mismatch).await?;
    }
    if report.paid {
        let event = payment_succeeded(report, recorded.booking_id, mismatch.clone());
        tx.append_event(&event).await?;
    }
    tx.commit().await?;
    Ok(ReportOutcome::recorded(mismatch.is_some()))
}
