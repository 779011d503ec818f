use super::*;

#[async_trait::async_trait]
impl StaffAccounts for PgStore {
    async fn add_staff(&self, new: &NewStaff) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(
            "insert into staff_user (name, role, password_hash) values ($1, $2, $3)
             on conflict (name) do nothing returning id",
        )
        .bind(new.name.as_str())
        .bind(new.role.as_str())
        .bind(&new.password_hash)
        .fetch_optional(&self.pool)
        .await?)
    }

    async fn staff_list(&self) -> Result<Vec<StaffAccount>, StoreError> {
        list_staff!(&self.pool)
    }

    async fn staff_named(&self, name: &str) -> Result<Option<StaffAccount>, StoreError> {
        find_staff!(&self.pool, name)
    }

    async fn disable_staff(&self, name: &str) -> Result<bool, StoreError> {
        let disable = sqlx::query(
            "update staff_user set disabled_at = now() where name = $1 and disabled_at is null",
        );
        Ok(disable
            .bind(name)
            .execute(&self.pool)
            .await?
            .rows_affected()
            == 1)
    }
}
