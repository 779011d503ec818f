import { expect, test } from "./guarded";
import * as fs from "fs";
import * as path from "path";
import { SeatMapPage, SignInPage, apiStatus, onSale, otherCustomer, screenshotDir, showtimeIds, wholeRowsInView } from "./pages";

// Seat rules on the customer's page: best available in one tap, the lone-seat rule explained
// before Hold is pressed (and refused by the server all the same), house seats. Each test has a
// showtime of its own (ids 13 to 15 of those on sale; seat-picker.spec.ts uses 0 to 12).

const dataDir = process.env.E2E_DATA_DIR ?? path.join(__dirname, "..", "..", "target", "e2e-data");
const operatorPassword = () => fs.readFileSync(path.join(dataDir, "operator.password"), "utf8").trim();

interface MapSeat {
  code: string;
  x: number;
  y: number;
  accessible: boolean;
  companion: boolean;
}

test("best 4 in one tap: four seats side by side in one row are held and shown before paying", async ({ page }) => {
  const id = (await showtimeIds(page))[13];
  const map = new SeatMapPage(page);
  await map.open(id);
  await page.locator('[data-test="best-count"]').selectOption("4");
  await expect(page.locator('[data-test="best-button"]')).toHaveText("Find the best 4");
  await page.locator('[data-test="best-button"]').click();

  await expect(map.holdPanel).toBeVisible();
  await expect(map.heldSeats).toHaveText(/^Seats \w+, \w+, \w+, \w+$/);
  const codes = (await map.heldSeats.textContent())!.replace("Seats ", "").split(", ");
  const seats: MapSeat[] = (await (await page.request.get(`/showtimes/${id}/seats`)).json()).seats;
  const held = codes.map((c) => seats.find((s) => s.code === c)!);
  // One row, neighbouring grid columns (never across an aisle), no wheelchair or companion seat.
  expect(new Set(held.map((s) => s.y)).size).toBe(1);
  const xs = held.map((s) => s.x).sort((a, b) => a - b);
  expect(xs).toEqual([xs[0], xs[0] + 1, xs[0] + 2, xs[0] + 3]);
  expect(held.some((s) => s.accessible || s.companion)).toBe(false);
  // Of the category the bar chose and said: the cheapest (standard) in these halls.
  expect(held.every((s) => (s as MapSeat & { category: string }).category === "STANDARD")).toBe(true);
  for (const code of codes) {
    await expect(map.seat(code)).toHaveAttribute("data-view", "mine");
    expect(await apiStatus(page, id, code)).toBe("HELD");
  }
});

test("a selection that leaves one seat alone is explained before Hold, and refused by the server too", async ({ page }) => {
  const id = (await showtimeIds(page))[14];
  const map = new SeatMapPage(page);
  await map.open(id);
  const hint = page.locator('[data-test="rule-hint"]');
  await expect(hint).toBeHidden();
  // A2 to A4 would leave A1 alone at the end of the row (in either demo hall).
  await map.select("A2", "A3", "A4");
  await expect(map.seat("A1")).toHaveAttribute("data-view", "stranded");
  await expect(hint).toBeVisible();
  await expect(hint).toContainText("would leave A1 alone");
  await expect(map.holdButton).toBeDisabled();
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "lone-seat.png") });

  // The rule is the server's: the same seats through the REST API are refused and stay free.
  const refused = await page.request.post(`/showtimes/${id}/holds`, { data: { seats: ["A2", "A3", "A4"] } });
  expect(refused.status()).toBe(422);
  const body = await refused.json();
  expect(body.code).toBe("LONE_SEAT");
  expect(body.seats).toEqual(["A1"]);
  expect(await apiStatus(page, id, "A2")).toBe("AVAILABLE");

  // Taking A1 as well leaves no one alone.
  await map.select("A1");
  await expect(hint).toBeHidden();
  await expect(map.seat("A1")).toHaveAttribute("data-view", "selected");
  await map.holdButton.click();
  await expect(map.heldSeats).toHaveText("Seats A1, A2, A3, A4");
});

test("an operator makes a seat a house seat: every customer's map shows it off sale at once and nobody can take it", async ({ page, browser }) => {
  const id = (await showtimeIds(page))[15];
  const customer = await otherCustomer(browser);
  await customer.open(id);
  await expect(customer.seat("A5")).toHaveAttribute("data-view", "free");

  await page.goto("/admin/halls");
  await page.locator('[data-test="sign-in-link"]').click();
  await new SignInPage(page).signIn("operator", operatorPassword());
  await expect(page).toHaveURL(/\/admin\/halls$/);
  await expect(page.locator('[data-test="block-form"]')).toBeVisible();
  await page.locator('[data-test="block-showtime"]').selectOption(String(id));
  // The seats are tapped on the showtime's map (A5, and A6 tapped twice: not taken), which
  // writes their codes into the field.
  const blockMap = page.locator('[data-test="block-map"]');
  await blockMap.locator('[data-test="seat-A5"]').click();
  await blockMap.locator('[data-test="seat-A6"]').click();
  await blockMap.locator('[data-test="seat-A6"]').click();
  await expect(page.locator('[data-test="block-seats"]')).toHaveValue("A5");
  await page.locator('[data-test="block-kind"]').selectOption("house");
  await page.locator('[data-test="block-button"]').click();
  await expect(page.locator('[data-test="halls-notice"]')).toContainText("A5");
  await expect(page.locator('[data-test="halls-notice"]')).toContainText("house seats");
  // The map is read again: A5 is off sale on it, nothing is tapped.
  await expect(blockMap.locator('[data-test="seat-A5"]')).toHaveAttribute("data-view", "blocked");
  await expect(page.locator('[data-test="block-seats"]')).toHaveValue("A5");

  // The customer's map follows without a reload, and the seat cannot be picked or held.
  await expect(customer.seat("A5")).toHaveAttribute("data-view", "blocked");
  await expect(customer.seat("A5")).toHaveAttribute("aria-disabled", "true");
  await customer.seat("A5").click({ force: true }); // a tap on it anyway is answered
  await expect(customer.notice).toContainText("A5");
  await expect(customer.seat("A5")).toHaveAttribute("aria-pressed", "false");
  const refused = await customer.page.request.post(`/showtimes/${id}/holds`, { data: { seats: ["A5"] } });
  expect(refused.status()).toBe(409);
  expect(await apiStatus(customer.page, id, "A5")).toBe("HOUSE");
  const best = await customer.page.request.post(`/showtimes/${id}/holds`, {
    data: { bestAvailable: { count: 8 } },
  });
  expect(best.status()).toBe(201);
  expect((await best.json()).seats).not.toContain("A5");

  // At 1366×768 the console draws a 300-seat hall whole across the form: every seat and both row
  // letters inside the map, nothing to scroll sideways.
  await page.setViewportSize({ width: 1366, height: 768 });
  const big = (await onSale(page)).find((s) => s.seatsTotal === 300)!.id;
  await page.locator('[data-test="block-showtime"]').selectOption(String(big));
  await expect(blockMap.locator(".seat-grid .seat")).toHaveCount(300);
  await wholeRowsInView(page, '[data-test="block-map"]');
  await blockMap.screenshot({ path: path.join(screenshotDir, "admin-block-map-1366.png") });
});
