//! Staff accounts: the store contract on both backends, the `server staff` command (through its
//! function and as the real binary), and the operator account an embedded first start makes.

use crate::support::*;
use server::staff::{self, PasswordSource, StaffName, StaffRole};
use server::store::{NewStaff, SqliteStore, Store};
use std::process::{Command, Output, Stdio};

on_both_backends!(
    staff_accounts_are_added_once_found_listed_and_disabled,
    the_staff_command_adds_lists_and_disables_and_refuses_bad_input,
);

fn new_staff(name: &str, role: StaffRole) -> NewStaff {
    NewStaff {
        name: StaffName::parse(name).unwrap(),
        role,
        password_hash: staff::hash_secret("a password of some length"),
    }
}

async fn staff_accounts_are_added_once_found_listed_and_disabled(backend: Backend) {
    let db = TestDb::new(backend).await;
    let store = &db.store;
    assert!(store.staff_list().await.unwrap().is_empty());
    let kim = store
        .add_staff(&new_staff("kim", StaffRole::Clerk))
        .await
        .unwrap();
    assert!(kim.is_some());
    let again = new_staff("kim", StaffRole::Operator);
    assert_eq!(store.add_staff(&again).await.unwrap(), None, "name taken");
    store
        .add_staff(&new_staff("ahn", StaffRole::Door))
        .await
        .unwrap()
        .unwrap();

    let found = store.staff_named("kim").await.unwrap().expect("kim");
    assert_eq!((found.role, found.disabled_at), (StaffRole::Clerk, None));
    assert!(staff::verify_secret(
        &found.password_hash,
        "a password of some length"
    ));
    assert_eq!(store.staff_named("lee").await.unwrap(), None);
    let names: Vec<String> = store
        .staff_list()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["ahn", "kim"]);

    assert!(store.disable_staff("kim").await.unwrap());
    assert!(
        !store.disable_staff("kim").await.unwrap(),
        "already disabled"
    );
    assert!(
        !store.disable_staff("lee").await.unwrap(),
        "no such account"
    );
    let disabled = store.staff_named("kim").await.unwrap().unwrap();
    assert!(disabled.disabled_at.is_some());
    assert_eq!(disabled.role, StaffRole::Clerk, "kept, not deleted");
    db.drop_database().await;
}

/// Answers one password and counts how often it was asked.
struct Typed(&'static str, usize);

impl PasswordSource for Typed {
    fn password(&mut self, _: &StaffName) -> anyhow::Result<String> {
        self.1 += 1;
        Ok(self.0.to_string())
    }
}

async fn the_staff_command_adds_lists_and_disables_and_refuses_bad_input(backend: Backend) {
    let db = TestDb::new(backend).await;
    let store = &db.store;
    let run = |args: &[&str], typed: &'static str| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        async move {
            let mut source = Typed(typed, 0);
            let out = staff::command(store, &args, &mut source).await;
            (out.map_err(|e| e.to_string()), source.1)
        }
    };
    let good = "correct horse battery";
    let (out, asked) = run(&["add", "Kim", "--role", "supervisor"], good).await;
    assert_eq!((out.unwrap(), asked), ("added kim (supervisor)".into(), 1));
    let kim = store.staff_named("kim").await.unwrap().unwrap();
    assert!(staff::verify_secret(&kim.password_hash, good));

    let refusals: [(&[&str], &str, &str); 6] = [
        (
            &["add", "kim", "--role", "clerk"],
            good,
            "already a staff account named kim",
        ),
        (
            &["add", "lee", "--role", "admin"],
            good,
            "unknown role \"admin\"",
        ),
        (
            &["add", "l", "--role", "clerk"],
            good,
            "a staff name is 2 to 32",
        ),
        (
            &["add", "lee", "--role", "clerk"],
            "too short",
            "12 to 256 characters, not 9",
        ),
        (&["disable", "lee"], good, "no staff account named lee"),
        (&["remove", "kim"], good, "usage: server staff add"),
    ];
    for (args, typed, says) in refusals {
        let (out, _) = run(args, typed).await;
        let error = out.expect_err("refused");
        assert!(error.contains(says), "{args:?}: {error}");
    }
    let (_, asked) = run(&["add", "kim", "--role", "clerk"], good).await;
    assert_eq!(asked, 0, "no password is asked for a name that is taken");
    assert_eq!(store.staff_list().await.unwrap().len(), 1, "nothing added");

    let (out, _) = run(&["list"], good).await;
    assert!(out.unwrap().starts_with("kim "), "listed");
    let (out, _) = run(&["disable", "kim"], good).await;
    assert_eq!(out.unwrap(), "disabled kim");
    let (out, _) = run(&["disable", "kim"], good).await;
    assert_eq!(out.unwrap(), "kim was already disabled");
    let (out, _) = run(&["list"], good).await;
    assert!(out.unwrap().contains("disabled 20"), "shown disabled");
    // What the command changed is in the audit log, once each (refusals change nothing).
    let audit: Vec<(String, String)> = store
        .staff_audit(10)
        .await
        .unwrap()
        .into_iter()
        .map(|l| (l.staff_name, l.action))
        .collect();
    let line = |action: &str| ("kim".to_string(), action.to_string());
    assert_eq!(audit, [line("staff_disabled"), line("staff_added")]);
    db.drop_database().await;
}

/// `server staff <args>` as a process on the embedded store in `data`, `stdin` typed in.
fn staff_command(data: &std::path::Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .arg("staff")
        .args(args)
        .env("DATABASE_URL", "")
        .env("REDIS_URL", "")
        .env("DATA_DIR", data)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server binary");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn the_server_binary_manages_staff_from_the_command_line() {
    let data = tempdir("seats-staff-cli");
    let added = staff_command(
        &data,
        &["add", "park", "--role", "door"],
        "door password 1\n",
    );
    assert!(added.status.success(), "{}", text(&added.stderr));
    assert_eq!(text(&added.stdout).trim(), "added park (door)");

    let again = staff_command(
        &data,
        &["add", "park", "--role", "door"],
        "door password 1\n",
    );
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("already a staff account named park"));

    let list = staff_command(&data, &["list"], "");
    assert!(
        text(&list.stdout).contains("park"),
        "{}",
        text(&list.stdout)
    );
    assert!(text(&list.stdout).contains("door"));

    let store = Store::from(
        SqliteStore::connect(&format!("sqlite://{}", data.join("seats.db").display()))
            .await
            .unwrap(),
    );
    let park = store.staff_named("park").await.unwrap().unwrap();
    assert!(staff::verify_secret(&park.password_hash, "door password 1"));
    let _ = std::fs::remove_dir_all(&data);
}

#[tokio::test]
async fn an_embedded_first_start_makes_the_operator_account_with_the_kept_password() {
    let data = tempdir("seats-staff-first");
    {
        let port = free_port();
        let mut server = Command::new(env!("CARGO_BIN_EXE_server"));
        server
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .env("DATABASE_URL", "")
            .env("REDIS_URL", "")
            .env("DATA_DIR", &data)
            .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null());
        let _running = Running(server.spawn().unwrap());
        let base = format!("http://127.0.0.1:{port}");
        let up = eventually(
            std::time::Duration::from_secs(30),
            || async { reqwest::get(format!("{base}/health")).await.is_ok() },
            |up| *up,
        )
        .await;
        assert!(up, "the embedded server started");
    }
    let password = std::fs::read_to_string(data.join("operator.password")).unwrap();
    let store = Store::from(
        SqliteStore::connect(&format!("sqlite://{}", data.join("seats.db").display()))
            .await
            .unwrap(),
    );
    let accounts = store.staff_list().await.unwrap();
    assert_eq!(accounts.len(), 1);
    assert_eq!(
        (accounts[0].name.as_str(), accounts[0].role),
        ("operator", StaffRole::Operator)
    );
    assert!(staff::verify_secret(
        &accounts[0].password_hash,
        password.trim()
    ));
    let _ = std::fs::remove_dir_all(&data);
}

fn tempdir(prefix: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
