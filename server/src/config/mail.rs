//! Customers' e-mail: where it goes (`SMTP_URL`, or files under `MAIL_DIR`), who it is from, and
//! how failures are retried.

use super::Env;
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct MailConfig {
    /// `smtps://user:password@host:465` (TLS from the start), `smtp://…:587?tls=required`
    /// (STARTTLS, refused without it), `?tls=opportunistic` (STARTTLS when offered), or plain
    /// `smtp://host:25` (a relay on the same machine). Unset: every message is written as a
    /// `.eml` file under `dir` instead.
    pub smtp_url: Option<crate::config::Secret>,
    /// The folder of the file transport (`MAIL_DIR`, default `<DATA_DIR>/mail`).
    pub dir: PathBuf,
    /// The sender, e.g. `Seats Cinema <tickets@cinema.example>` (`MAIL_FROM`).
    pub from: String,
    /// The first wait after a failed try; each further one doubles it (`MAIL_RETRY_SECONDS`).
    pub retry: Duration,
    /// Tries before a message is parked for an operator (`MAIL_MAX_ATTEMPTS`).
    pub max_attempts: u32,
    /// How often the mail worker looks for messages due (`MAIL_POLL_SECONDS`).
    pub poll: Duration,
}

impl MailConfig {
    pub(super) fn from_env(env: &Env, data_dir: &Path) -> anyhow::Result<Self> {
        let smtp_url = match env.non_empty("SMTP_URL") {
            None => None,
            Some(url) if url.starts_with("smtp://") || url.starts_with("smtps://") => {
                Some(crate::config::Secret::new(url.into_bytes()))
            }
            Some(_) => bail!("SMTP_URL must start with smtp:// or smtps://"),
        };
        let from = env
            .non_empty("MAIL_FROM")
            .unwrap_or_else(|| "Seats Cinema <tickets@localhost>".into());
        from.parse::<lettre::message::Mailbox>().with_context(|| {
            format!("MAIL_FROM must be an address like `Name <a@b.example>`, not {from:?}")
        })?;
        let max_attempts = env.count("MAIL_MAX_ATTEMPTS", 8)?;
        if max_attempts == 0 {
            bail!("MAIL_MAX_ATTEMPTS must be at least 1");
        }
        Ok(Self {
            smtp_url,
            dir: env
                .non_empty("MAIL_DIR")
                .map_or_else(|| data_dir.join("mail"), PathBuf::from),
            from,
            retry: env.seconds("MAIL_RETRY_SECONDS", 30)?,
            max_attempts,
            poll: env.seconds("MAIL_POLL_SECONDS", 2)?,
        })
    }
}
