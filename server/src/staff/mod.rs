//! Staff accounts: the people who run a venue, each with one role, who sign in with a password
//! kept only as an argon2id hash ([`hashing`] runs every check on a few threads of its own).
//! Accounts are added, listed, disabled, given a new password, signed out everywhere and freed of
//! their failed tries from the command line (`server staff …`, [`command`]), so a new venue needs
//! no database editing; while there is no
//! account a start makes the `operator` account ([`ensure_first_operator`]: `OPERATOR_PASSWORD`,
//! in embedded mode by default the password in `data/operator.password`). Signing in and
//! sessions are `engine::staff` and `http::staff`.

pub mod hashing;

use crate::store::{At, NewStaff, Store};
use anyhow::{bail, Context};
use app::domain::AuditFact;
pub use app::domain::StaffRole;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use std::fmt;

/// A staff sign-in name: 2 to 32 of `a`–`z`, `0`–`9`, `.`, `_`, `-`, starting with a letter.
/// Upper-case letters are taken as lower-case, so `Alice` and `alice` are one account.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaffName(String);

impl StaffName {
    pub fn parse(input: &str) -> Result<Self, String> {
        let name = input.trim().to_ascii_lowercase();
        let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || ".-_".contains(c);
        if !(2..=32).contains(&name.len())
            || !name.starts_with(|c: char| c.is_ascii_lowercase())
            || !name.chars().all(allowed)
        {
            return Err(format!(
                "a staff name is 2 to 32 letters, digits, '.', '_' or '-', starting with a letter, not {input:?}"
            ));
        }
        Ok(Self(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StaffName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Shortest and longest password a staff account may have.
pub const PASSWORD_LENGTH: std::ops::RangeInclusive<usize> = 12..=256;

/// Why `password` may not be a staff password, if it may not.
pub fn password_problem(password: &str) -> Option<String> {
    let length = password.chars().count();
    (!PASSWORD_LENGTH.contains(&length)).then(|| {
        format!(
            "a staff password has {} to {} characters, not {length}",
            PASSWORD_LENGTH.start(),
            PASSWORD_LENGTH.end()
        )
    })
}

/// The stored form of a session or token secret.
pub fn secret_hash(secret: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(secret.as_bytes()))
}

/// How a sign-in name is counted: trimmed, lower case, at most 64 characters (names that are
/// no account's are counted the same way, so the answers do not tell which names exist).
pub fn name_key(name: &str) -> String {
    match StaffName::parse(name) {
        Ok(name) => name.as_str().to_string(),
        // Not a name any account can have (a NUL byte, 10,000 characters…): counted under its
        // digest, so the key is always printable and short, and still the same for the same
        // input.
        Err(_) => format!("~{}", &secret_hash(name.trim())[..32]),
    }
}

/// The prefixes of every throttle key of `name` (`server staff unlock`).
pub fn throttle_prefixes(name: &str) -> Vec<String> {
    let who = name_key(name);
    vec![format!("pw:{who}@"), format!("pin:{who}@")]
}

/// The argon2id hash of `secret` (PHC string: algorithm, parameters, random salt, hash).
pub fn hash_secret(secret: &str) -> String {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>()).expect("16 bytes make a salt");
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .expect("argon2id with its default parameters hashes any input")
        .to_string()
}

/// Whether `secret` is the one `hash` was made from (false for a hash that does not parse).
pub fn verify_secret(hash: &str, secret: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| {
        Argon2::default()
            .verify_password(secret.as_bytes(), &h)
            .is_ok()
    })
}

/// Where `server staff add` and `server staff passwd` read the new password from.
pub trait PasswordSource {
    fn password(&mut self, name: &StaffName) -> anyhow::Result<String>;
}

/// Standard input: a prompt without echo (asked twice) on a terminal, else the first line.
pub struct Stdin;

impl PasswordSource for Stdin {
    fn password(&mut self, name: &StaffName) -> anyhow::Result<String> {
        use std::io::{BufRead, IsTerminal, Write};
        let stdin = std::io::stdin();
        let read_line = || -> anyhow::Result<String> {
            let mut line = String::new();
            stdin
                .lock()
                .read_line(&mut line)
                .context("reading the password")?;
            Ok(line.trim_end_matches(['\r', '\n']).to_string())
        };
        if !stdin.is_terminal() {
            return read_line();
        }
        let echo = |on: bool| {
            let _ = std::process::Command::new("stty")
                .arg(if on { "echo" } else { "-echo" })
                .stdin(std::process::Stdio::inherit())
                .status();
        };
        let ask = |prompt: &str| -> anyhow::Result<String> {
            eprint!("{prompt}");
            std::io::stderr().flush()?;
            echo(false);
            let line = read_line();
            echo(true);
            eprintln!();
            line
        };
        let first = ask(&format!("password for {name}: "))?;
        if ask("the same again: ")? != first {
            bail!("the two passwords differ; nothing changed");
        }
        Ok(first)
    }
}

const USAGE: &str = "usage: server staff add <name> --role <operator|supervisor|clerk|door>
       server staff list
       server staff disable <name>
       server staff passwd <name>     (a new password; ends the member's sessions)
       server staff sign-out <name>   (ends every session of the member)
       server staff unlock <name>     (forgets the failed sign-ins and PINs that slow the member down)";

/// The active account named `name` (parsed), or why not.
async fn account_named(
    store: &Store,
    name: &str,
) -> anyhow::Result<(StaffName, crate::store::StaffAccount)> {
    let name = StaffName::parse(name).map_err(anyhow::Error::msg)?;
    match store.staff_named(name.as_str()).await? {
        Some(account) => Ok((name, account)),
        None => bail!("no staff account named {name}"),
    }
}

/// Runs `server staff <args>` against `store` and answers what to print.
pub async fn command(
    store: &Store,
    args: &[String],
    passwords: &mut dyn PasswordSource,
) -> anyhow::Result<String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["add", name, "--role", role] | ["add", "--role", role, name] => {
            let name = StaffName::parse(name).map_err(anyhow::Error::msg)?;
            let Some(role) = StaffRole::parse(role) else {
                bail!("unknown role {role:?}; a role is operator, supervisor, clerk or door");
            };
            if store.staff_named(name.as_str()).await?.is_some() {
                bail!("there is already a staff account named {name}; nothing changed");
            }
            let password = passwords.password(&name)?;
            if let Some(problem) = password_problem(&password) {
                bail!("{problem}; nothing changed");
            }
            let new = NewStaff {
                name: name.clone(),
                role,
                password_hash: hash_secret(&password),
            };
            match store.add_staff(&new).await? {
                Some(id) => {
                    let detail = format!("added with role {role} by the server staff command");
                    let facts = [AuditFact::Role(role), AuditFact::ByCommand];
                    audit_command(
                        store,
                        Some(id),
                        name.as_str(),
                        "staff_added",
                        &detail,
                        &facts,
                    )
                    .await;
                    Ok(format!("added {name} ({role})"))
                }
                None => bail!("there is already a staff account named {name}; nothing changed"),
            }
        }
        ["list"] => {
            let accounts = store.staff_list().await?;
            if accounts.is_empty() {
                return Ok("no staff accounts".into());
            }
            Ok(accounts
                .iter()
                .map(|a| {
                    let state = match a.disabled_at {
                        Some(at) => format!("disabled {}", at.format("%Y-%m-%d %H:%M UTC")),
                        None => "active".into(),
                    };
                    format!("{:<32} {:<10} {state}", a.name, a.role.as_str())
                })
                .collect::<Vec<_>>()
                .join("\n"))
        }
        ["disable", name] => {
            let name = StaffName::parse(name).map_err(anyhow::Error::msg)?;
            match store.disable_staff(name.as_str()).await? {
                true => {
                    let detail = "disabled by the server staff command";
                    let id = store.staff_named(name.as_str()).await?.map(|a| a.id);
                    let facts = [AuditFact::ByCommand];
                    audit_command(store, id, name.as_str(), "staff_disabled", detail, &facts).await;
                    Ok(format!("disabled {name}"))
                }
                false => match store.staff_named(name.as_str()).await? {
                    Some(_) => Ok(format!("{name} was already disabled")),
                    None => bail!("no staff account named {name}"),
                },
            }
        }
        ["passwd", name] => {
            let (name, account) = account_named(store, name).await?;
            let password = passwords.password(&name)?;
            if let Some(problem) = password_problem(&password) {
                bail!("{problem}; nothing changed");
            }
            store
                .set_staff_password(account.id, &hash_secret(&password))
                .await?;
            let now = At::or_now(None);
            let ended = store.end_member_sessions(account.id, None, now).await?;
            store
                .throttle_clear(&throttle_prefixes(name.as_str()))
                .await?;
            let detail =
                format!("new password set by the server staff command; {ended} sessions ended");
            audit_command(
                store,
                Some(account.id),
                name.as_str(),
                "password_changed",
                &detail,
                &[AuditFact::ByCommand, AuditFact::SessionsEnded(ended as i64)],
            )
            .await;
            Ok(format!(
                "new password set for {name}; {ended} sessions ended"
            ))
        }
        ["sign-out", name] => {
            let (name, account) = account_named(store, name).await?;
            let ended = store
                .end_member_sessions(account.id, None, At::or_now(None))
                .await?;
            let detail = format!("{ended} sessions ended by the server staff command");
            audit_command(
                store,
                Some(account.id),
                name.as_str(),
                "signed_out_everywhere",
                &detail,
                &[AuditFact::ByCommand, AuditFact::SessionsEnded(ended as i64)],
            )
            .await;
            Ok(format!("{ended} sessions of {name} ended"))
        }
        ["unlock", name] => {
            let (name, account) = account_named(store, name).await?;
            let cleared = store
                .throttle_clear(&throttle_prefixes(name.as_str()))
                .await?;
            let detail =
                format!("failed tries forgotten by the server staff command ({cleared} counts)");
            let facts = [AuditFact::ByCommand];
            audit_command(
                store,
                Some(account.id),
                name.as_str(),
                "unlocked",
                &detail,
                &facts,
            )
            .await;
            Ok(format!(
                "{name} may sign in again at once ({cleared} counts of failed tries forgotten)"
            ))
        }
        _ => bail!("{USAGE}"),
    }
}

/// Records a change the command (or a start) made in the audit log, named after the account
/// changed; it runs on the server's machine, so no address.
async fn audit_command(
    store: &Store,
    id: Option<i64>,
    name: &str,
    action: &str,
    detail: &str,
    facts: &[AuditFact],
) {
    let entry = crate::store::NewAuditEntry {
        at: crate::store::At::or_now(None),
        staff_id: id,
        staff_name: name,
        action,
        detail,
        facts: crate::store::facts_json(facts),
        address: None,
    };
    if let Err(e) = store.record_staff_action(&entry).await {
        tracing::error!(error = %e, action, "could not write the audit log");
    }
}

/// While there is no staff account, makes the `operator` account (role operator) with
/// `password` (`OPERATOR_PASSWORD`, or in embedded mode the one kept in the data folder).
pub async fn ensure_first_operator(store: &Store, password: &str) -> anyhow::Result<()> {
    if !store.staff_list().await?.is_empty() {
        // The password only makes the first account: a changed one is not applied, and saying
        // so keeps an operator from wondering why the new one does not sign in.
        if let Some(operator) = store.staff_named("operator").await? {
            let (hash, password) = (operator.password_hash, password.to_string());
            let same = hashing::Hasher::global().verify(hash, password).await;
            if same == Ok(false) {
                tracing::warn!(
                    "the first operator's password (OPERATOR_PASSWORD, or in embedded mode \
                     data/operator.password) is not the operator account's password: it only \
                     makes the first account and is never applied later; change a password \
                     with `server staff passwd operator` or in the console (/admin)"
                );
            }
        }
        return Ok(());
    }
    let new = NewStaff {
        name: StaffName::parse("operator").expect("a valid name"),
        role: StaffRole::Operator,
        password_hash: hash_secret(password),
    };
    let id = store.add_staff(&new).await?;
    let detail = "made at start: there was no staff account";
    let facts = [
        AuditFact::Role(StaffRole::Operator),
        AuditFact::FirstAccount,
    ];
    audit_command(store, id, "operator", "staff_added", detail, &facts).await;
    tracing::info!("staff account \"operator\" created (role operator)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_verifies_against_its_own_hash_only() {
        let hash = hash_secret("correct horse battery");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_secret(&hash, "correct horse battery"));
        assert!(!verify_secret(&hash, "correct horse batterY"));
        assert!(!verify_secret("not a hash", "correct horse battery"));
        assert_ne!(
            hash,
            hash_secret("correct horse battery"),
            "a new salt each time"
        );
    }

    #[test]
    fn staff_names_and_roles_parse_strictly() {
        assert_eq!(StaffName::parse(" Alice ").unwrap().as_str(), "alice");
        assert_eq!(StaffName::parse("kim.j-2_b").unwrap().as_str(), "kim.j-2_b");
        for bad in [
            "",
            "a",
            "2pac",
            "ali ce",
            "ålice",
            "x".repeat(33).as_str(),
            "-a",
        ] {
            assert!(StaffName::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(StaffRole::parse("door"), Some(StaffRole::Door));
        assert_eq!(StaffRole::parse("Door"), None);
        assert_eq!(StaffRole::parse("admin"), None);
        assert!(password_problem("short").is_some());
        assert!(password_problem("twelve chars").is_none());
        assert!(password_problem(&"x".repeat(257)).is_some());
    }
}
