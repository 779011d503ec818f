//! The secrets a server starts with: the session key, the ticket keys and the first operator's
//! password — each given, or read from (and first written to) the data folder.

use crate::config::{Config, Database, Secret};
use crate::http::session::SessionKey;
use anyhow::Context;

/// The session key from `SESSION_SECRET`, or a random one kept in the data folder.
pub(super) fn session_key(config: &Config) -> anyhow::Result<SessionKey> {
    if let Some(secret) = &config.http.session_secret {
        return Ok(SessionKey::new(secret.clone()));
    }
    let path = config.store.data_dir.join("session.key");
    if let Ok(hex_key) = std::fs::read_to_string(&path) {
        if let Ok(bytes) = hex::decode(hex_key.trim()) {
            return Ok(SessionKey::new(Secret::new(bytes)));
        }
    }
    std::fs::create_dir_all(&config.store.data_dir)?;
    let bytes: [u8; 32] = rand::random();
    std::fs::write(&path, hex::encode(bytes))
        .with_context(|| format!("failed to write {}", path.display()))?;
    Ok(SessionKey::new(Secret::new(bytes.to_vec())))
}

/// The ticket keys: `TICKET_KEYS`, else (embedded mode only; PostgreSQL requires them) one
/// random key kept in the data folder.
pub(super) fn ticket_keys(config: &Config) -> anyhow::Result<crate::engine::tickets::TicketKeys> {
    use crate::engine::tickets::TicketKeys;
    if !config.sales.ticket_keys.is_empty() {
        return Ok(TicketKeys::new(
            config
                .sales
                .ticket_keys
                .iter()
                .map(|(id, secret)| (id.clone(), secret.expose().to_vec()))
                .collect(),
        ));
    }
    let path = config.store.data_dir.join("ticket.keys");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let keys = crate::config::parse_ticket_keys(text.trim())
            .with_context(|| format!("{} is not a list of ticket keys", path.display()))?;
        return Ok(TicketKeys::new(
            keys.into_iter()
                .map(|(id, secret)| (id, secret.expose().to_vec()))
                .collect(),
        ));
    }
    std::fs::create_dir_all(&config.store.data_dir)?;
    let secret = hex::encode(rand::random::<[u8; 32]>());
    std::fs::write(&path, format!("k1:{secret}"))
        .with_context(|| format!("failed to write {}", path.display()))?;
    Ok(TicketKeys::new(vec![("k1".into(), secret.into_bytes())]))
}

/// The first operator's password: `OPERATOR_PASSWORD`, else (embedded mode) a random one kept
/// in the data folder, else none.
pub(super) fn operator_password(config: &Config) -> anyhow::Result<Option<Secret>> {
    if let Some(password) = &config.staff.operator_password {
        return Ok(Some(password.clone()));
    }
    if matches!(config.store.database, Database::Postgres(_)) {
        return Ok(None);
    }
    let path = config.store.data_dir.join("operator.password");
    let password = match std::fs::read_to_string(&path) {
        Ok(text) if crate::staff::password_problem(text.trim()).is_none() => {
            text.trim().to_string()
        }
        _ => {
            std::fs::create_dir_all(&config.store.data_dir)?;
            let password = hex::encode(rand::random::<[u8; 12]>());
            std::fs::write(&path, &password)
                .with_context(|| format!("failed to write {}", path.display()))?;
            password
        }
    };
    tracing::info!(
        "staff sign-in (/staff/sign-in): user \"operator\", password in {}",
        path.display()
    );
    Ok(Some(Secret::new(password.into_bytes())))
}
