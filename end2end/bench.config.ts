import { defineConfig } from "@playwright/test";

// The browser part of scripts/bench-bundle.sh: a measurement, not a test of the product; the
// script starts the server it measures (BENCH_BASE).
export default defineConfig({
  testDir: "./bench",
  timeout: 300_000,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
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
});
