import { expect, test } from "./guarded";
import { SeatMapPage } from "./pages";

// Two server instances share PostgreSQL and Redis (playwright.config.ts starts them; the test
// command creates their database). One browser per instance.
const a = `http://127.0.0.1:${process.env.E2E_SHARED_PORT_A ?? 3902}`;
const b = `http://127.0.0.1:${process.env.E2E_SHARED_PORT_B ?? 3903}`;

test("a hold made through one server instance appears live in a browser on the other", async ({ browser }) => {
  test.setTimeout(60_000);
  const list: { id: number; salesOpen: boolean; startsAt: string }[] = await (await fetch(`${a}/showtimes`)).json();
  const later = Date.now() + 60 * 60 * 1000;
  const id = list.filter((s) => s.salesOpen && Date.parse(s.startsAt) > later)[1].id;
  const buyer = new SeatMapPage(await (await browser.newContext({ baseURL: a })).newPage());
  const watcher = new SeatMapPage(await (await browser.newContext({ baseURL: b })).newPage());
  await buyer.open(id);
  await watcher.open(id);

  // Waited for as state, not timed: how fast a change reaches viewers is measured in
  // BENCHMARKS.md (bench-live.sh), and a loaded 2-core machine can stall a browser for seconds.
  await buyer.hold("J9", "J10");
  await expect(watcher.seat("J9")).toHaveAttribute("data-view", "taken", { timeout: 10_000 });
  await expect(watcher.seat("J10")).toHaveAttribute("data-view", "taken", { timeout: 10_000 });

  await buyer.cancelButton.click();
  await expect(watcher.seat("J9")).toHaveAttribute("data-view", "free", { timeout: 10_000 });
  await expect(watcher.seat("J10")).toHaveAttribute("data-view", "free", { timeout: 10_000 });
});
