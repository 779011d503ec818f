use super::*;

#[async_trait::async_trait]
impl StaffAccounts for SqliteStore {
    async fn add_staff(&self, new: &NewStaff) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query_scalar(
            "insert into staff_user (name, role, password_hash, created_at) values ($1, $2, $3, $4)
             on conflict (name) do nothing returning id",
        )
        .bind(new.name.as_str())
        .bind(new.role.as_str())
        .bind(&new.password_hash)
        .bind(At::or_now(None))
        .fetch_optional(&self.write)
        .await?)
    }

    async fn staff_list(&self) -> Result<Vec<StaffAccount>, StoreError> {
        list_staff!(&self.read)
    }

    async fn staff_named(&self, name: &str) -> Result<Option<StaffAccount>, StoreError> {
        find_staff!(&self.read, name)
    }

    async fn disable_staff(&self, name: &str) -> Result<bool, StoreError> {
        let disable = sqlx::query(
            "update staff_user set disabled_at = $2 where name = $1 and disabled_at is null",
        );
        let disable = disable.bind(name).bind(At::or_now(None));
        Ok(disable.execute(&self.write).await?.rows_affected() == 1)
    }
}
