//! Customers' e-mail: the messages (`compose`), their QR image (`png`), and the way out
//! (`Mailer`): SMTP in production, `.eml` files under the data folder in the embedded default, so
//! a venue trying the product reads what its customers would receive.

pub(crate) mod compose;
mod png;

pub use compose::Letter;
pub use png::qr_png;

use crate::config::MailConfig;
use lettre::message::Mailbox;
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// How long one SMTP conversation may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Files(AsyncFileTransport<Tokio1Executor>),
}

/// Why a message did not go.
#[derive(Debug)]
pub struct SendError {
    pub message: String,
    /// The server refused it for good (a 5xx answer): trying again will not help.
    pub permanent: bool,
}

pub struct Mailer {
    transport: Transport,
    from: Mailbox,
    /// Where the site is, for links: `https://cinema.example` (no trailing slash).
    public_url: String,
    pub retry: Duration,
    pub max_attempts: u32,
    pub poll: Duration,
    /// Said in logs and the console: `smtp://host:port` (never credentials) or the folder.
    pub destination: String,
    /// The file transport's folder.
    files: Option<std::path::PathBuf>,
}

impl Mailer {
    pub fn new(config: &MailConfig, public_url: &str) -> anyhow::Result<Self> {
        use anyhow::Context;
        let (transport, destination) = match &config.smtp_url {
            Some(url) => {
                let url = std::str::from_utf8(url.expose()).context("SMTP_URL")?;
                let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .map_err(|e| anyhow::anyhow!("SMTP_URL is not usable: {e}"))?
                    .timeout(Some(SMTP_TIMEOUT))
                    .build();
                (Transport::Smtp(transport), without_credentials(url))
            }
            None => {
                std::fs::create_dir_all(&config.dir).with_context(|| {
                    format!("cannot create the mail folder {}", config.dir.display())
                })?;
                (
                    Transport::Files(AsyncFileTransport::new(&config.dir)),
                    config.dir.display().to_string(),
                )
            }
        };
        Ok(Self {
            transport,
            from: config.from.parse().context("MAIL_FROM")?,
            public_url: public_url.trim_end_matches('/').to_string(),
            retry: config.retry,
            max_attempts: config.max_attempts,
            poll: config.poll,
            destination,
            files: config.smtp_url.is_none().then(|| config.dir.clone()),
        })
    }

    pub fn from(&self) -> &Mailbox {
        &self.from
    }

    /// The site's address followed by `path` (which starts with `/`).
    pub fn link(&self, path: &str) -> String {
        format!("{}{path}", self.public_url)
    }

    /// Deletes the file transport's messages older than `age` (they hold the customer's
    /// address, which is kept no longer than the booking keeps it); how many.
    pub fn prune_files(&self, age: Duration) -> usize {
        let Some(Ok(entries)) = self.files.as_ref().map(std::fs::read_dir) else {
            return 0;
        };
        let old = |meta: std::fs::Metadata| {
            meta.modified()
                .ok()
                .and_then(|at| at.elapsed().ok())
                .is_some_and(|elapsed| elapsed > age)
        };
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
            .filter(|e| e.metadata().is_ok_and(old))
            .filter(|e| std::fs::remove_file(e.path()).is_ok())
            .count()
    }

    pub async fn send(&self, message: &Message) -> Result<(), SendError> {
        match &self.transport {
            Transport::Smtp(smtp) => {
                smtp.send(message.clone())
                    .await
                    .map(|_| ())
                    .map_err(|e| SendError {
                        permanent: e.is_permanent(),
                        message: e.to_string(),
                    })
            }
            Transport::Files(files) => {
                files
                    .send(message.clone())
                    .await
                    .map(|_| ())
                    .map_err(|e| SendError {
                        permanent: false,
                        message: e.to_string(),
                    })
            }
        }
    }
}

/// `smtp://user:secret@host:587` as `smtp://host:587`.
fn without_credentials(url: &str) -> String {
    match (url.split_once("://"), url.rfind('@')) {
        (Some((scheme, _)), Some(at)) => format!("{scheme}://{}", &url[at + 1..]),
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_never_show() {
        assert_eq!(
            super::without_credentials("smtps://kim:p@ss@mail.example:465"),
            "smtps://mail.example:465"
        );
        assert_eq!(
            super::without_credentials("smtp://127.0.0.1:2525"),
            "smtp://127.0.0.1:2525"
        );
    }
}
