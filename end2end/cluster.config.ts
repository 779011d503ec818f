import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// The reference deployment (scripts/cluster.sh): three instances behind HAProxy, started by the
// caller (scripts/test.sh, or by hand), which also gives the cluster's settings in the
// environment (its cluster.env). The live-map, payment, waiting-room and box-office specs run
// against the balancer's one public port, as customers and clerks reach it; cluster/ adds what
// only a cluster can show.
const port = Number(process.env.CLUSTER_PORT ?? 8080);

export default defineConfig({
  ...base,
  testDir: ".",
  testMatch: /(tests\/(live|payment|waiting-room|box-office)|cluster\/[\w-]+)\.spec\.ts$/,
  use: { ...base.use, baseURL: `http://127.0.0.1:${port}` },
  webServer: [],
});
