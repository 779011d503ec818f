import { expect, test } from "./guarded";
import { SeatMapPage, otherCustomer, showtimeIds } from "./pages";

test("a hold in one browser appears in another without reload, and so does its release", async ({ page, browser }) => {
  // Waited for as state, not timed: how fast a change reaches viewers is measured in
  // BENCHMARKS.md (bench-live.sh); a loaded 2-core machine can stall a browser for seconds.
  test.setTimeout(60_000);
  const ids = await showtimeIds(page);
  const watcher = new SeatMapPage(page);
  await watcher.open(ids[9]);
  const buyer = await otherCustomer(browser);
  await buyer.open(ids[9]);
  await watcher.select("G7"); // the watcher wants G7 too, but is slower

  await buyer.hold("G7", "G8");
  await expect(watcher.seat("G8")).toHaveAttribute("data-view", "taken", { timeout: 10_000 });
  await expect(watcher.seat("G7")).toHaveAttribute("data-view", "taken", { timeout: 10_000 });
  await expect(watcher.notice).toContainText("G7 was just taken by someone else");
  await expect(watcher.selection).toHaveText("Choose up to 8 seats.");

  await buyer.cancelButton.click();
  await expect(watcher.seat("G8")).toHaveAttribute("data-view", "free", { timeout: 10_000 });
  await expect(watcher.seat("G7")).toHaveAttribute("data-view", "free", { timeout: 10_000 });
  await buyer.page.context().close();
});
