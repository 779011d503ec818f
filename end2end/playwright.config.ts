import { defineConfig } from "@playwright/test";

// The server under test: the binary built by `cargo leptos build` (scripts/test.sh builds it),
// on its own port, over a throwaway embedded database, with short holds.
const port = Number(process.env.E2E_PORT ?? 3901);
const root = `${__dirname}/..`;
const targetDir = process.env.CARGO_TARGET_DIR ?? `${root}/target`;

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
  webServer: {
    command: process.env.E2E_SERVER_BIN ?? `${targetDir}/debug/server`,
    cwd: root,
    url: `http://127.0.0.1:${port}/health`,
    timeout: 60_000,
    reuseExistingServer: false,
    env: {
      LEPTOS_SITE_ADDR: `127.0.0.1:${port}`,
      LEPTOS_SITE_ROOT: process.env.LEPTOS_SITE_ROOT ?? `${root}/target/site`,
      LEPTOS_ENV: "PROD",
      DATABASE_URL: "",
      DATA_DIR: process.env.E2E_DATA_DIR ?? `${root}/target/e2e-data`,
      HOLD_TTL_SECONDS: "20",
      SWEEP_INTERVAL_SECONDS: "1",
      RUST_LOG: "warn",
    },
  },
});
