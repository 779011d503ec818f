//! Slowing down guesses of passwords and PINs: a count of failures per key with growing waits
//! (never a hard lock). An attempt is counted *before* its secret is checked, so guesses sent at
//! the same moment are counted too; a right secret then forgets (or gives back) its count. The
//! keys are the engine's (`engine::staff`); the rule of how long a key waits is here, beside the
//! statements that apply it.

use super::dialect::on;
use super::*;

/// How one kind of key is slowed down: the first `free` failures in a row cost nothing, then each
/// one makes the key wait, `first` after the first of them and twice as long each time, up to
/// `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleRule {
    pub free: u32,
    pub first: std::time::Duration,
    pub max: std::time::Duration,
}

impl ThrottleRule {
    /// The wait after `failures` failures in a row.
    pub fn wait_after(self, failures: u32) -> std::time::Duration {
        if failures <= self.free {
            return std::time::Duration::ZERO;
        }
        let doublings = (failures - self.free - 1).min(30);
        self.first.saturating_mul(1 << doublings).min(self.max)
    }
}

/// One key of an attempt, with its rule.
#[derive(Debug, Clone)]
pub struct Throttled {
    pub key: String,
    pub rule: ThrottleRule,
}

/// What is stored of a key: failures in a row, and when the next try may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct KeyState {
    failures: u32,
    next_at: At,
}

/// The attempt on keys in `states` (as read under their locks) at `at`: `Err(until)` when one
/// of them is still waiting (nothing changes), else every key's state once this attempt is
/// counted as a failure.
fn count_attempt(
    keys: &[Throttled],
    states: &[Option<KeyState>],
    at: At,
) -> Result<Vec<KeyState>, DateTime<Utc>> {
    if let Some(until) = states
        .iter()
        .flatten()
        .map(|s| s.next_at)
        .filter(|next| *next > at)
        .max()
    {
        return Err(until.0);
    }
    Ok(keys
        .iter()
        .zip(states)
        .map(|(key, state)| {
            let failures = state.map_or(0, |s| s.failures).saturating_add(1);
            KeyState {
                failures,
                next_at: at.after(key.rule.wait_after(failures)),
            }
        })
        .collect())
}

/// Keys in one order, so two attempts never wait for each other's second key.
fn sorted(keys: &[Throttled]) -> Vec<Throttled> {
    let mut keys = keys.to_vec();
    keys.sort_by(|a, b| a.key.cmp(&b.key));
    keys.dedup_by(|a, b| a.key == b.key);
    keys
}

fn state(row: Option<(i32, At)>) -> Option<KeyState> {
    row.map(|(failures, next_at)| KeyState {
        failures: failures.max(0) as u32,
        next_at,
    })
}

impl Store {
    /// One attempt on `keys` at `at`: `Err(until)` (nothing counted) while any of them waits;
    /// else counted on every key as a failure (taken back by [`Self::throttle_passed`]).
    pub async fn throttle_attempt(
        &self,
        keys: &[Throttled],
        at: At,
    ) -> Result<Result<(), DateTime<Utc>>, StoreError> {
        let keys = sorted(keys);
        let mut tx = self.begin().await?;
        let mut states = Vec::with_capacity(keys.len());
        for key in &keys {
            ensure_key(&mut tx, &key.key, at).await?;
            states.push(read_key_locked(&mut tx, &key.key).await?);
        }
        // A refusal drops `tx`: the keys it made are rolled back.
        let counted = match count_attempt(&keys, &states, at) {
            Ok(counted) => counted,
            Err(until) => return Ok(Err(until)),
        };
        for (key, counted) in keys.iter().zip(counted) {
            write_key(&mut tx, &key.key, counted, at).await?;
        }
        tx.commit().await?;
        Ok(Ok(()))
    }

    /// The attempt's secret was right: `forget` keys start again from nothing, `give_back` keys
    /// lose this attempt's count (their waits stay).
    pub async fn throttle_passed(
        &self,
        forget: &[String],
        give_back: &[String],
    ) -> Result<(), StoreError> {
        let forget_key = "delete from sign_in_throttle where key = $1";
        let give_back_key = "update sign_in_throttle set failures = failures - 1
                              where key = $1 and failures > 0";
        let mut conn = self.writer().await?;
        let changes = forget
            .iter()
            .map(|key| (forget_key, key))
            .chain(give_back.iter().map(|key| (give_back_key, key)));
        for (statement, key) in changes {
            on!(&mut conn, c => {
                sqlx::query(statement).bind(key).execute(c).await?;
            });
        }
        Ok(())
    }

    /// Failures in a row of `key` so far.
    pub async fn throttle_failures(&self, key: &str) -> Result<u32, StoreError> {
        let read = "select failures, next_at from sign_in_throttle where key = $1";
        let row: Option<(i32, At)> = on!(&mut self.writer().await?, c => {
            sqlx::query_as(read).bind(key).fetch_optional(c).await?
        });
        Ok(state(row).map_or(0, |s| s.failures))
    }

    /// Forgets every key that starts with one of `prefixes` (an operator's unlock); how many.
    pub async fn throttle_clear(&self, prefixes: &[String]) -> Result<u64, StoreError> {
        let clear = "delete from sign_in_throttle where substr(key, 1, length($1)) = $1";
        let mut conn = self.writer().await?;
        let mut cleared = 0;
        for prefix in prefixes {
            cleared += on!(&mut conn, c => {
                sqlx::query(clear).bind(prefix).execute(c).await?.rows_affected()
            });
        }
        Ok(cleared)
    }

    /// Forgets keys not tried since `before`; how many.
    pub async fn throttle_purge(&self, before: At) -> Result<u64, StoreError> {
        let purge = "delete from sign_in_throttle where seen_at < $1";
        let purged = on!(&mut self.writer().await?, c => {
            sqlx::query(purge).bind(before).execute(c).await?.rows_affected()
        });
        Ok(purged)
    }

    /// The addresses `staff_id` signed in from most recently (at most 200).
    pub async fn signed_in_from(&self, staff_id: i64) -> Result<Vec<String>, StoreError> {
        let addresses = "select address from staff_session
                          where staff_id = $1 and address is not null
                          group by address order by max(created_at) desc limit 200";
        let addresses: Vec<String> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(addresses).bind(staff_id).fetch_all(c).await?
        });
        Ok(addresses)
    }

    /// Whether `staff_id` opened a session in the browser of `device` before.
    pub async fn signed_in_on(&self, staff_id: i64, device: &str) -> Result<bool, StoreError> {
        let sessions = "select count(*) from staff_session where staff_id = $1 and device = $2";
        let n: i64 = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(sessions)
                .bind(staff_id)
                .bind(device)
                .fetch_one(c)
                .await?
        });
        Ok(n > 0)
    }

    /// Records `key` as used at `at`: true the first time, false ever after (until it is
    /// purged with the keys not tried lately). A proof of work is good once.
    pub async fn throttle_once(&self, key: &str, at: At) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        let first = ensure_key(&mut tx, key, at).await?;
        tx.commit().await?;
        Ok(first)
    }
}

/// Stores `key` with no failures unless it is stored; whether it was new.
async fn ensure_key(tx: &mut Tx, key: &str, at: At) -> Result<bool, StoreError> {
    let ensure = "insert into sign_in_throttle (key, failures, next_at, seen_at)
                  values ($1, 0, $2, $2) on conflict (key) do nothing";
    let made = on!(tx, c => {
        sqlx::query(ensure).bind(key).bind(at).execute(c).await?.rows_affected()
    });
    Ok(made == 1)
}

/// The state of `key`, locked until `tx` ends (SQLite's writer holds the whole database).
async fn read_key_locked(tx: &mut Tx, key: &str) -> Result<Option<KeyState>, StoreError> {
    let read = format!(
        "select failures, next_at from sign_in_throttle where key = $1 {}",
        tx.row_lock("for update")
    );
    let row: Option<(i32, At)> = on!(tx, c => {
        sqlx::query_as(&read).bind(key).fetch_optional(c).await?
    });
    Ok(state(row))
}

async fn write_key(tx: &mut Tx, key: &str, counted: KeyState, at: At) -> Result<(), StoreError> {
    let write = "update sign_in_throttle set failures = $2, next_at = $3, seen_at = $4
                  where key = $1";
    on!(tx, c => {
        sqlx::query(write)
            .bind(key)
            .bind(counted.failures.min(i32::MAX as u32) as i32)
            .bind(counted.next_at)
            .bind(at)
            .execute(c)
            .await?;
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const RULE: ThrottleRule = ThrottleRule {
        free: 5,
        first: Duration::from_secs(1),
        max: Duration::from_secs(900),
    };

    #[test]
    fn the_first_failures_are_free_then_each_waits_twice_as_long_up_to_the_most() {
        let waits: Vec<u64> = (0..=8).map(|n| RULE.wait_after(n).as_secs()).collect();
        assert_eq!(waits, [0, 0, 0, 0, 0, 0, 1, 2, 4]);
        assert_eq!(RULE.wait_after(20), Duration::from_secs(900));
        assert_eq!(RULE.wait_after(u32::MAX), Duration::from_secs(900));
    }

    #[test]
    fn an_attempt_while_a_key_waits_changes_nothing_and_says_until_when() {
        let at = At::or_now(None);
        let keys = [
            Throttled {
                key: "a".into(),
                rule: RULE,
            },
            Throttled {
                key: "b".into(),
                rule: RULE,
            },
        ];
        let waiting = KeyState {
            failures: 6,
            next_at: at.after(Duration::from_secs(2)),
        };
        assert_eq!(
            count_attempt(&keys, &[None, Some(waiting)], at),
            Err(waiting.next_at.0)
        );
        let counted = count_attempt(
            &keys,
            &[
                None,
                Some(KeyState {
                    next_at: at,
                    ..waiting
                }),
            ],
            at,
        )
        .expect("no key waits");
        assert_eq!(counted[0].failures, 1);
        assert_eq!(counted[0].next_at, at, "the first failures cost nothing");
        assert_eq!(counted[1].failures, 7);
        assert_eq!(counted[1].next_at, at.after(Duration::from_secs(2)));
    }
}
