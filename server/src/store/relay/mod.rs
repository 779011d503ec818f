//! The outbox relay's side of the store: the lease that makes one relay the sender, the
//! committed booking events still to send, and marking them sent.

use super::dialect::on;
use super::*;

/// The types of outbox event the relay publishes (payment events stay inside).
pub const PUBLISHED_EVENTS: [&str; 5] = crate::booking_events::PUBLISHED;

/// The condition that picks the events to publish. Literal, not bound: the partial index
/// `outbox_unpublished` is defined with the same text, and PostgreSQL uses it only when the
/// query's condition is the index's (checked by the tests below).
const UNPUBLISHED: &str = "published_at is null
                and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued',
                                   'SeatsExchanged', 'RefundOwed')";

/// An unpublished event as [`Store::unpublished_events`] reads it.
#[derive(sqlx::FromRow)]
struct UnpublishedRow {
    id: i64,
    aggregate_id: uuid::Uuid,
    event_type: String,
    payload: String,
}

impl From<UnpublishedRow> for OutboxEvent {
    fn from(row: UnpublishedRow) -> Self {
        Self {
            id: row.id,
            key: BookingId(row.aggregate_id),
            event_type: row.event_type,
            payload: row.payload,
        }
    }
}

/// A committed outbox event on its way to the broker.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxEvent {
    pub id: i64,
    /// The booking: the message key.
    pub key: BookingId,
    pub event_type: String,
    /// The event's JSON (see `booking_events`).
    pub payload: String,
}

impl Store {
    /// Takes the relay lease `name` for `owner`, or renews it when `owner` has it; `false` when
    /// another owner's lease has not run out.
    pub async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let take = "insert into relay_lease (name, owner, expires_at)
                    values ($1, $2, coalesce($3, current_timestamp) + $4)
                    on conflict (name) do update
                       set owner = excluded.owner, expires_at = excluded.expires_at
                     where relay_lease.owner = excluded.owner
                        or relay_lease.expires_at < coalesce($3, current_timestamp)
                 returning owner";
        let taken: Option<String> = on!(&mut self.writer().await?, c => {
            sqlx::query_scalar(take)
                .bind(name)
                .bind(owner)
                .bind(Moment(None))
                .bind(Span::from(lease))
                .fetch_optional(c)
                .await?
        });
        Ok(taken.is_some())
    }

    /// Gives the lease up (a relay stopping), so a standby takes over at once.
    pub async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError> {
        let drop = "delete from relay_lease where name = $1 and owner = $2";
        on!(&mut self.writer().await?, c => {
            sqlx::query(drop).bind(name).bind(owner).execute(c).await?;
        });
        Ok(())
    }

    /// Up to `limit` committed, unpublished events of the published types, oldest first.
    pub async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError> {
        let unpublished = format!(
            "select id, aggregate_id, event_type, cast(payload as text) as payload from outbox
              where {UNPUBLISHED} order by id limit $1"
        );
        let rows: Vec<UnpublishedRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(&unpublished).bind(limit).fetch_all(c).await?
        });
        Ok(rows.into_iter().map(OutboxEvent::from).collect())
    }

    /// Marks these events published — only while `owner` still holds the lease `name` (a relay
    /// that lost its lease leaves them to the new holder, which sends them again). How many
    /// were marked.
    pub async fn mark_published(
        &self,
        name: &str,
        owner: &str,
        ids: &[i64],
    ) -> Result<u64, StoreError> {
        let mut conn = self.writer().await?;
        let mark = format!(
            "update outbox set published_at = coalesce($3, current_timestamp)
              where {} and published_at is null
                and exists (select 1 from relay_lease
                             where name = $1 and owner = $2
                               and expires_at >= coalesce($3, current_timestamp))",
            conn.in_list("id", 4)
        );
        Ok(on!(&mut conn, c => {
            sqlx::query(&mark)
                .bind(name)
                .bind(owner)
                .bind(Moment(None))
                .bind(List(ids.to_vec()))
                .execute(c)
                .await?
                .rows_affected()
        }))
    }

    /// Committed events of the published types still waiting for the relay.
    pub async fn unpublished_count(&self) -> Result<i64, StoreError> {
        let count = format!("select count(*) from outbox where {UNPUBLISHED}");
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(&count).fetch_one(c).await?
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_list_of_published_types_is_the_published_events() {
        let listed: Vec<&str> = UNPUBLISHED
            .split('(')
            .nth(1)
            .and_then(|l| l.split(')').next())
            .unwrap()
            .split(',')
            .map(|t| t.trim().trim_matches('\''))
            .collect();
        assert_eq!(listed, PUBLISHED_EVENTS);
        // The partial index's definition uses the same condition.
        for migration in [
            include_str!("../../../../migrations/postgres/20261206000005_counter_refunds_owed.sql"),
            include_str!("../../../../migrations/sqlite/20261206000005_counter_refunds_owed.sql"),
        ] {
            let squeezed = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                squeezed(migration).contains(&squeezed(UNPUBLISHED)),
                "{migration}"
            );
        }
    }
}
