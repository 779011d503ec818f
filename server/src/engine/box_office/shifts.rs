//! A clerk's shift at a register: opened with a cash float, its figures per tender, closed with
//! the cash counted (by the clerk, or a supervisor); the operator's view of recent shifts and of
//! the counter refunds a cancelled showtime owes.

use super::*;

fn figures(sales: &[TenderSum], refunds: &[TenderSum]) -> ShiftFigures {
    let sale = |kind: &str| sales.iter().find(|t| t.kind == kind);
    let (cash, card, comp) = (sale("cash"), sale("card"), sale("comp"));
    let cash_refund = refunds.iter().find(|t| t.kind == "cash");
    let other = refunds.iter().filter(|t| t.kind != "cash");
    ShiftFigures {
        cash_sales: cash.map_or(0, |t| t.count),
        cash_amount: cash.map_or(Won::ZERO, |t| t.amount),
        card_sales: card.map_or(0, |t| t.count),
        card_amount: card.map_or(Won::ZERO, |t| t.amount),
        comp_sales: comp.map_or(0, |t| t.count),
        comp_seats: comp.map_or(0, |t| t.seats),
        cash_refunds: cash_refund.map_or(0, |t| t.count),
        cash_refunded: cash_refund.map_or(Won::ZERO, |t| t.amount),
        other_refunds: other.clone().map(|t| t.count).sum(),
        other_refunded: other.map(|t| t.amount).sum(),
        owed_refunds: 0,
        owed_amount: Won::ZERO,
    }
}

#[async_trait::async_trait]
impl Shifts for Engine {
    /// The acting member's open shift.
    async fn box_office_shift(&self, actor: &Actor) -> Result<Option<Shift>, InventoryError> {
        match self
            .store
            .shifts(ShiftFilter::OpenOf(actor.member.id))
            .await?
            .pop()
        {
            Some(record) => Ok(Some(self.shift_view(record).await?)),
            None => Ok(None),
        }
    }

    /// Opens a shift at `register` with `float` won in the drawer.
    async fn open_shift(
        &self,
        actor: &Actor,
        register: &str,
        float: Won,
    ) -> Result<Shift, InventoryError> {
        if let Some(why) = app::domain::name_problem("invalid.what.register", register, 40) {
            return Err(InventoryError::Invalid(vec![why]));
        }
        let register = register.trim();
        if !(Won::ZERO..=MAX_CASH).contains(&float) {
            return Err(InventoryError::invalid(
                "invalid.float",
                &[("max_won", MAX_CASH.to_string())],
            ));
        }
        let Some(id) = self
            .store
            .open_shift(actor.member.id, register, float, self.now_at())
            .await?
        else {
            return Err(InventoryError::ShiftAlreadyOpen(
                match self.box_office_shift(actor).await? {
                    Some(shift) => {
                        Reason::new("invalid.shift_open_yours", &[("register", shift.register)])
                    }
                    None => Reason::new(
                        "invalid.shift_open_register",
                        &[("register", register.to_string())],
                    ),
                },
            ));
        };
        self.audit(
            actor,
            "shift_opened",
            Said::new(
                format!("shift {id} at register {register}, float {float}"),
                vec![
                    AuditFact::Shift(id),
                    AuditFact::Register(register.to_string()),
                    AuditFact::Float(float),
                ],
            ),
        )
        .await;
        let record = self.store.shifts(ShiftFilter::One(id)).await?.pop();
        self.shift_view(record.ok_or(InventoryError::Unavailable)?)
            .await
    }

    /// Closes the acting member's open shift, or (a supervisor) shift `id`, with the cash
    /// counted.
    async fn close_shift(
        &self,
        actor: &Actor,
        id: Option<i64>,
        counted: Won,
    ) -> Result<Shift, InventoryError> {
        if !(Won::ZERO..=MAX_CASH).contains(&counted) {
            return Err(InventoryError::invalid(
                "invalid.counted",
                &[("max_won", MAX_CASH.to_string())],
            ));
        }
        let id = match id {
            Some(id) => id,
            None => self.open_shift_id(actor).await?,
        };
        let record = self
            .store
            .shifts(ShiftFilter::One(id))
            .await?
            .pop()
            .ok_or_else(|| {
                InventoryError::invalid("invalid.no_shift", &[("id", id.to_string())])
            })?;
        if record.clerk_id != actor.member.id && !actor.member.role.may(&APPROVERS) {
            return Err(InventoryError::StaffForbidden);
        }
        if !self
            .store
            .close_shift(id, counted, actor.member.id, self.now_at())
            .await?
        {
            return Err(InventoryError::ShiftClosed);
        }
        // The clerk's picks that were never sold go back on sale.
        self.release_clerk_holds(record.clerk_id).await?;
        let record = self.store.shifts(ShiftFilter::One(id)).await?.pop();
        let shift = self
            .shift_view(record.ok_or(InventoryError::Unavailable)?)
            .await?;
        self.audit(
            actor,
            "shift_closed",
            Said::new(
                format!(
                    "shift {id} of {}: expected cash {}, counted {counted}, variance {}",
                    shift.clerk,
                    shift.expected_cash(),
                    shift.variance().unwrap_or_default()
                ),
                vec![
                    AuditFact::Shift(id),
                    AuditFact::Clerk(shift.clerk.clone()),
                    AuditFact::ExpectedCash(shift.expected_cash()),
                    AuditFact::Counted(counted),
                    AuditFact::Variance(shift.variance().unwrap_or_default()),
                ],
            ),
        )
        .await;
        Ok(shift)
    }

    /// Recent shifts, newest first (the operator's report).
    async fn shifts_report(&self) -> Result<Vec<Shift>, InventoryError> {
        let mut out = Vec::new();
        for record in self.store.shifts(ShiftFilter::Recent).await? {
            out.push(self.shift_view(record).await?);
        }
        Ok(out)
    }

    /// Counter sales of cancelled showtimes owed back, oldest first.
    async fn refunds_owed(&self) -> Result<Vec<app::domain::OwedRefund>, InventoryError> {
        self.store
            .refunds_owed()
            .await?
            .into_iter()
            .map(|o| {
                Ok(app::domain::OwedRefund {
                    booking_id: BookingId(o.booking_id),
                    showtime_id: crate::store::stored_showtime(o.showtime_id)?,
                    movie_title: o.movie_title,
                    starts_at: o.starts_at.0,
                    method: o.method,
                    amount: o.amount_krw,
                    owed_at: o.owed_at.0,
                    clerk: o.clerk,
                })
            })
            .collect::<Result<_, crate::store::StoreError>>()
            .map_err(InventoryError::from)
    }
}

impl Engine {
    async fn shift_view(&self, record: ShiftRecord) -> Result<Shift, InventoryError> {
        let (sales, refunds) = self.store.shift_sums(record.id).await?;
        let (owed_refunds, owed_amount) = self.store.shift_owed(record.id).await?;
        Ok(Shift {
            id: record.id,
            clerk: record.clerk,
            register: record.register,
            float: record.float_krw,
            opened_at: record.opened_at.0,
            closed_at: record.closed_at.map(|at| at.0),
            counted: record.counted_krw,
            closed_by: record.closed_by,
            figures: ShiftFigures {
                owed_refunds,
                owed_amount,
                ..figures(&sales, &refunds)
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_figures_add_up_per_tender() {
        let sum = |kind: &str, count, seats, amount| TenderSum {
            kind: kind.into(),
            count,
            seats,
            amount: Won::new(amount),
        };
        let f = figures(
            &[
                sum("cash", 2, 5, 60_000),
                sum("card", 1, 2, 24_000),
                sum("comp", 1, 2, 0),
            ],
            &[sum("cash", 1, 0, 12_000), sum("gateway", 1, 0, 24_000)],
        );
        assert_eq!((f.cash_sales, f.cash_amount), (2, Won::new(60_000)));
        assert_eq!((f.card_sales, f.card_amount), (1, Won::new(24_000)));
        assert_eq!((f.comp_sales, f.comp_seats), (1, 2));
        assert_eq!((f.cash_refunds, f.cash_refunded), (1, Won::new(12_000)));
        assert_eq!((f.other_refunds, f.other_refunded), (1, Won::new(24_000)));
        assert_eq!(f.expected_cash(Won::new(10_000)), Won::new(58_000));
    }
}
