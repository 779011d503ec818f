use super::*;

#[async_trait::async_trait]
impl Contacts for PgStore {
    async fn booking_with_reference(
        &self,
        email: &str,
        reference: &str,
    ) -> Result<Option<BookingId>, StoreError> {
        booking_with_reference!(&self.pool, email, reference)
    }

    async fn grant_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
        access: Access,
        now: Now,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "insert into booking_access (booking_id, customer_id, granted_at, can_cancel)
             values ($1, $2, coalesce($3::timestamptz, now()), $4)
             on conflict (customer_id, booking_id)
             do update set can_cancel = booking_access.can_cancel or excluded.can_cancel",
        )
        .bind(booking.0)
        .bind(customer.0)
        .bind(now)
        .bind(access == Access::Mailbox)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn has_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Option<Access>, StoreError> {
        has_booking_access!(&self.pool, booking, customer)
    }

    async fn purge_emails(&self, now: Now, retention: chrono::Duration) -> Result<u64, StoreError> {
        let mut emptied = 0;
        loop {
            let n = sqlx::query(
                "update booking set email = null
                  where id in (select b.id from booking b join showtime s on s.id = b.showtime_id
                                where b.email is not null
                                  and s.starts_at < coalesce($1::timestamptz, now())
                                                    - $2::bigint * interval '1 millisecond'
                                limit $3)",
            )
            .bind(now)
            .bind(retention.num_milliseconds())
            .bind(PURGE_BATCH)
            .execute(&self.pool)
            .await?
            .rows_affected();
            emptied += n;
            if n < PURGE_BATCH as u64 {
                return Ok(emptied);
            }
        }
    }
}
