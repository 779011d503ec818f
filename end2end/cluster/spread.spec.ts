import { type Page } from "@playwright/test";
import { expect, test } from "../tests/guarded";
import { SeatMapPage, apiStatus, showtimeIds } from "../tests/pages";

// Run by cluster.config.ts only: HAProxy names the instance that answered (X-Served-By).

/** The instances that answered the page's requests to the balancer, from now on. */
function servedBy(page: Page): Set<string> {
  const seen = new Set<string>();
  page.on("response", (r) => {
    const who = r.headers()["x-served-by"];
    if (who) seen.add(who);
  });
  return seen;
}

test("the balancer sends requests to all three instances in turn, without stickiness", async ({ request }) => {
  const answered: string[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await request.get("/health");
    expect(r.status()).toBe(200);
    answered.push(r.headers()["x-served-by"]);
  }
  expect(new Set(answered)).toEqual(new Set(["server1", "server2", "server3"]));
});

test("one customer's page, hold and cancel are served by different instances, and the seats come back", async ({ page }) => {
  const seen = servedBy(page);
  const ids = await showtimeIds(page);
  const map = new SeatMapPage(page);
  await map.open(ids[2]);
  await map.hold("C3", "C4");
  await expect(map.heldSeats).toContainText("C3");
  await map.cancelButton.click();
  await expect(map.seat("C3")).toHaveAttribute("data-view", "free", { timeout: 10_000 });
  // The session cookie, signed by one instance, was honoured by the others.
  expect(seen.size).toBeGreaterThanOrEqual(2);
  // Read through the balancer, the map may come from an instance a second behind.
  for (const code of ["C3", "C4"]) {
    await expect.poll(() => apiStatus(page, ids[2], code), { timeout: 5_000 }).toBe("AVAILABLE");
  }
});
