import { defineConfig } from "@playwright/test";

// The server under test: the debug binary and site that scripts/test.sh builds (build_site),
// on its own port, over a throwaway embedded database, with short holds.
const port = Number(process.env.E2E_PORT ?? 3901);
const root = `${__dirname}/..`;
const targetDir = process.env.CARGO_TARGET_DIR ?? `${root}/target`;
const serverBin = process.env.E2E_SERVER_BIN ?? `${targetDir}/debug/server`;
// scripts/test.sh builds the tests' site in its own folder (never the one scripts/run.sh serves).
const siteRoot = process.env.LEPTOS_SITE_ROOT ?? `${targetDir}/e2e-site`;
// The two instances of tests/fanout.spec.ts; scripts/test.sh creates their database.
const sharedPortA = Number(process.env.E2E_SHARED_PORT_A ?? 3902);
const sharedPortB = Number(process.env.E2E_SHARED_PORT_B ?? 3903);
// The payment tests (tests/payment.spec.ts): a server with 10-minute holds and the sandbox.
const payPort = Number(process.env.E2E_PAY_PORT ?? 3904);
const sandboxPort = Number(process.env.E2E_SANDBOX_PORT ?? 3905);
const sandboxBin = process.env.E2E_SANDBOX_BIN ?? `${targetDir}/debug/payment-sandbox`;
// Shared by the payment sandbox and the server that uses it (a configured gateway needs one).
const sandboxSecret = "end-to-end sandbox webhook secret";
// The SMTP server the payment server sends customers' e-mail to (Debian's python3-aiosmtpd, as
// its own process), keeping each message in a maildir that tests/pages.ts reads.
const smtpPort = Number(process.env.E2E_SMTP_PORT ?? 3906);
const dataDir = process.env.E2E_DATA_DIR ?? `${root}/target/e2e-data`;
const sharedDatabase =
  process.env.E2E_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/seats_e2e";

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 5_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [{ name: "chromium" }],
  webServer: [
    {
      // The product's embedded default: SQLite, in-process events.
      command: serverBin,
      cwd: root,
      url: `http://127.0.0.1:${port}/health`,
      timeout: 60_000,
      reuseExistingServer: false,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${port}`,
        LEPTOS_SITE_ROOT: siteRoot,
        LEPTOS_ENV: "PROD",
        DATABASE_URL: "",
        REDIS_URL: "",
        DATA_DIR: process.env.E2E_DATA_DIR ?? `${root}/target/e2e-data`,
        HOLD_TTL_SECONDS: "20",
        SWEEP_INTERVAL_SECONDS: "1",
        // Every browser of the suite comes from 127.0.0.1: the per-address caps would count
        // all the tests' customers as one.
        HELD_SEATS_PER_ADDRESS: "0",
        HOLD_RATE_PER_ADDRESS: "0",
        // The waiting room's spec: a cancel lets the next shopper in within a second or two.
        WAITING_ROOM_REHOLD_SECONDS: "1",
        WAITING_ROOM_POLL_SECONDS: "2",
        // E2E_RUST_LOG=server=debug (say): the main server's log among the tests' output.
        RUST_LOG: process.env.E2E_RUST_LOG ?? "warn",
      },
    },
    {
      command: sandboxBin,
      cwd: root,
      url: `http://127.0.0.1:${sandboxPort}/health`,
      timeout: 60_000,
      reuseExistingServer: false,
      env: {
        SANDBOX_ADDR: `127.0.0.1:${sandboxPort}`,
        PAYMENT_WEBHOOK_SECRET: sandboxSecret,
        RUST_LOG: "warn",
      },
    },
    {
      command: `/usr/bin/python3 -m aiosmtpd -n -l 127.0.0.1:${smtpPort} -c aiosmtpd.handlers.Mailbox ${dataDir}/smtp`,
      cwd: root,
      port: smtpPort,
      timeout: 30_000,
      reuseExistingServer: false,
    },
    {
      command: serverBin,
      cwd: root,
      url: `http://127.0.0.1:${payPort}/health`,
      timeout: 60_000,
      reuseExistingServer: false,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${payPort}`,
        LEPTOS_SITE_ROOT: siteRoot,
        LEPTOS_ENV: "PROD",
        DATABASE_URL: "",
        REDIS_URL: "",
        DATA_DIR: `${process.env.E2E_DATA_DIR ?? `${root}/target/e2e-data`}/payments`,
        HOLD_TTL_SECONDS: "600",
        PAYMENT_GATEWAY_URL: `http://127.0.0.1:${sandboxPort}`,
        PAYMENT_WEBHOOK_SECRET: sandboxSecret,
        OPERATOR_PASSWORD: "end-to-end operator password",
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        MAIL_POLL_SECONDS: "0.5",
        HELD_SEATS_PER_ADDRESS: "0",
        HOLD_RATE_PER_ADDRESS: "0",
        RUST_LOG: "warn",
      },
    },
    // Two instances sharing PostgreSQL and Redis, as in production (tests/fanout.spec.ts).
    ...[sharedPortA, sharedPortB].map((p, i) => ({
      command: serverBin,
      cwd: root,
      url: `http://127.0.0.1:${p}/health`,
      timeout: 60_000,
      reuseExistingServer: false,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${p}`,
        LEPTOS_SITE_ROOT: siteRoot,
        LEPTOS_ENV: "PROD",
        DATABASE_URL: sharedDatabase,
        REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        DATA_DIR: `${process.env.E2E_DATA_DIR ?? `${root}/target/e2e-data`}/shared-${i}`,
        SESSION_SECRET: "end-to-end tests share this session secret",
        TICKET_KEYS: "e2e:end-to-end tests share this ticket key",
        PAYMENT_WEBHOOK_SECRET: "end-to-end tests' payment webhook secret",
        HELD_SEATS_PER_ADDRESS: "0",
        HOLD_RATE_PER_ADDRESS: "0",
        HOLD_TTL_SECONDS: "60",
        SWEEP_INTERVAL_SECONDS: "1",
        RUST_LOG: "warn",
      },
    })),
  ],
});
