use super::*;
use std::collections::HashMap;

fn config(vars: &[(&str, &str)]) -> anyhow::Result<Config> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_lookup(|k| map.get(k).cloned())
}

#[test]
fn no_configuration_means_the_embedded_sqlite_file() {
    let c = config(&[]).unwrap();
    assert_eq!(
        c.store.database,
        Database::Sqlite("sqlite://data/seats.db".into())
    );
    assert_eq!(c.sales.hold_ttl, Duration::from_secs(600));
    assert_eq!(c.sales.sweep_interval, Duration::from_secs(15));
}

/// What PostgreSQL (production) requires besides its URL.
const PRODUCTION: [(&str, &str); 4] = [
    ("DATABASE_URL", "postgres://u@h/db"),
    ("PAYMENT_WEBHOOK_SECRET", "a long enough shared secret"),
    (
        "SESSION_SECRET",
        "a session secret of at least 32 characters",
    ),
    (
        "TICKET_KEYS",
        "k1:a ticket secret of at least 32 characters",
    ),
];

#[test]
fn a_postgres_url_selects_postgres() {
    let c = config(&PRODUCTION).unwrap();
    assert_eq!(
        c.store.database,
        Database::Postgres("postgres://u@h/db".into())
    );
}

#[test]
fn a_direct_url_takes_the_sessions_a_pooler_would_not_keep() {
    let c = config(&PRODUCTION).unwrap();
    assert_eq!(c.store.session_url(), Some("postgres://u@h/db"));
    let mut env = PRODUCTION.to_vec();
    env.push(("DATABASE_DIRECT_URL", "postgres://u@primary/db"));
    let c = config(&env).unwrap();
    assert_eq!(
        c.store.direct_url.as_deref(),
        Some("postgres://u@primary/db")
    );
    assert_eq!(c.store.session_url(), Some("postgres://u@primary/db"));
    assert!(config(&[("DATABASE_DIRECT_URL", "postgres://u@primary/db")]).is_err());
    env.pop();
    env.push(("DATABASE_DIRECT_URL", "mysql://x"));
    assert!(config(&env).is_err());
}

#[test]
fn an_unknown_database_scheme_is_refused() {
    assert!(config(&[("DATABASE_URL", "mysql://x")]).is_err());
}

#[test]
fn hold_ttl_accepts_fractions_and_refuses_zero() {
    assert_eq!(
        config(&[("HOLD_TTL_SECONDS", "2.5")])
            .unwrap()
            .sales
            .hold_ttl,
        Duration::from_millis(2500)
    );
    assert!(config(&[("HOLD_TTL_SECONDS", "0")]).is_err());
    assert!(config(&[("HOLD_TTL_SECONDS", "ten")]).is_err());
}

#[test]
fn a_short_session_secret_is_refused_and_a_good_one_never_printed() {
    assert!(config(&[("SESSION_SECRET", "short")]).is_err());
    let c = config(&[("SESSION_SECRET", &"k".repeat(40))]).unwrap();
    assert_eq!(
        format!("{:?}", c.http.session_secret.unwrap()),
        "Secret(***)"
    );
}

#[test]
fn production_needs_its_shared_secrets() {
    assert!(config(&[]).is_ok());
    for (missing, (name, _)) in PRODUCTION.iter().enumerate().skip(1) {
        let vars: Vec<_> = PRODUCTION
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != missing)
            .map(|(_, v)| *v)
            .collect();
        let e = config(&vars).unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
    }
    let mut short = PRODUCTION.to_vec();
    short[1] = ("PAYMENT_WEBHOOK_SECRET", "short");
    assert!(config(&short).is_err());
    let c = config(&PRODUCTION).unwrap();
    assert_eq!(
        c.payments.webhook_secret.expose(),
        b"a long enough shared secret"
    );
}

#[test]
fn a_configured_gateway_needs_a_real_webhook_secret_even_when_embedded() {
    // The built-in sandbox (no gateway URL) works with no configuration.
    assert!(config(&[]).is_ok());
    let gateway = ("PAYMENT_GATEWAY_URL", "https://pay.example.com");
    let e = config(&[gateway]).unwrap_err().to_string();
    assert!(e.contains("PAYMENT_WEBHOOK_SECRET"), "{e}");
    let c = config(&[
        gateway,
        ("PAYMENT_WEBHOOK_SECRET", "a long enough shared secret"),
    ])
    .unwrap();
    assert_eq!(
        c.payments.webhook_secret.expose(),
        b"a long enough shared secret"
    );
}

#[test]
fn ticket_keys_name_an_id_and_a_long_secret_and_the_first_signs() {
    let keys = parse_ticket_keys(
        "k2:the newest ticket secret (32+ chars long),k1:an older ticket secret of 32+ chars",
    )
    .unwrap();
    assert_eq!(
        keys.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
        ["k2", "k1"]
    );
    for bad in [
        "k1",
        "k1:short",
        "K1:an upper-case id with a long enough secret",
        "toolongid:an id of nine characters with a long secret",
        "k1:a long enough secret for the first key ok,k1:the same id again and long enough",
        " , ",
    ] {
        assert!(parse_ticket_keys(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_lone_seat_rule_is_on_unless_the_venue_says_otherwise() {
    assert!(config(&[]).unwrap().sales.seat_rules.no_lone_seats);
    let edges = config(&[("LONE_SEAT_RULE", "exempt-edges")]).unwrap();
    assert!(edges.sales.seat_rules.exempt_edges);
    let off = config(&[("LONE_SEAT_RULE", "off")]).unwrap();
    assert!(!off.sales.seat_rules.no_lone_seats);
    let e = config(&[("LONE_SEAT_RULE", "maybe")]).unwrap_err();
    assert!(e.to_string().contains("LONE_SEAT_RULE"), "{e}");
}

#[test]
fn the_venue_offset_defaults_to_korea_and_must_be_an_offset() {
    assert_eq!(config(&[]).unwrap().sales.venue_utc_offset, "+09:00");
    let c = config(&[("VENUE_UTC_OFFSET", "-05:00")]).unwrap();
    assert_eq!(c.sales.venue_utc_offset, "-05:00");
    for bad in ["9", "UTC+9", "+15:00", "Asia/Seoul"] {
        let e = config(&[("VENUE_UTC_OFFSET", bad)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("VENUE_UTC_OFFSET"), "{bad}: {e}");
    }
}

#[test]
fn abuse_limits_have_defaults_and_can_be_turned_off() {
    let c = config(&[]).unwrap();
    assert_eq!(
        (
            c.limits.hold_rate_per_address,
            c.limits.holds_per_customer,
            c.limits.held_seats_per_address
        ),
        (30, 1, 40)
    );
    assert!(c.http.trusted_proxies.is_empty());
    assert!(c.http.max_connections >= 64 && c.http.max_connections <= 10_000);
    let c = config(&[
        ("HOLDS_PER_CUSTOMER", "0"),
        ("TRUSTED_PROXIES", "10.0.0.0/8, ::1"),
        ("REDIS_KEY_PREFIX", "cinema-1:"),
    ])
    .unwrap();
    assert_eq!(c.limits.holds_per_customer, 0);
    assert_eq!(c.http.trusted_proxies.len(), 2);
    assert_eq!(c.redis.key_prefix, "cinema-1:");
    assert!(config(&[("TRUSTED_PROXIES", "10.0.0.0/99")]).is_err());
    assert!(config(&[("REDIS_KEY_PREFIX", "a b")]).is_err());
    assert!(config(&[("MAX_CONNECTIONS", "0")]).is_err());
    assert!(config(&[("ALLOWED_ORIGINS", "kiosk.example.com")]).is_err());
}

#[test]
fn the_socket_caps_default_from_the_configured_connections_and_keep_a_reserve() {
    let c = config(&[("MAX_CONNECTIONS", "200")]).unwrap();
    assert_eq!(
        (c.http.max_live_viewers, c.http.max_queue_pages),
        (100, 100),
        "half of MAX_CONNECTIONS each, not half of the default"
    );
    assert_eq!((c.http.connection_reserve, c.http.max_sockets()), (50, 150));
    let c = config(&[("MAX_CONNECTIONS", "40")]).unwrap();
    assert_eq!(c.http.connection_reserve, 16);
    let c = config(&[("MAX_CONNECTIONS", "200"), ("CONNECTION_RESERVE", "20")]).unwrap();
    assert_eq!(c.http.max_sockets(), 180);
    assert!(config(&[("MAX_CONNECTIONS", "200"), ("CONNECTION_RESERVE", "200")]).is_err());
}

#[test]
fn redis_and_the_hold_rate_limit() {
    let c = config(&[]).unwrap();
    assert_eq!(c.redis.target, None);
    assert_eq!(c.limits.hold_rate_per_minute, 5);
    let c = config(&[
        ("REDIS_URL", "redis://a:7000,redis://b:7001"),
        ("HOLD_RATE_PER_MINUTE", "0"),
    ])
    .unwrap();
    assert!(c.redis.target.unwrap().is_cluster());
    assert_eq!(c.limits.hold_rate_per_minute, 0);
    assert!(config(&[("HOLD_RATE_PER_MINUTE", "-1")]).is_err());
    assert!(config(&[("REDIS_URL", "localhost:6379")]).is_ok());
    assert!(config(&[("REDIS_URL", "http://x")]).is_err());
}
