import { expect, test } from "@playwright/test";
import { SeatMapPage, ShowtimesPage, showtimeIds } from "./pages";

test("the showtime list is server-rendered and links to a seat map that hydrates", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));

  const list = new ShowtimesPage(page);
  await list.open();
  await expect(list.showtimes()).toHaveCount(24);
  await expect(list.onSale().first()).toContainText("seats free");

  await list.onSale().first().locator("a").click();
  await expect(page).toHaveURL(/\/showtimes\/\d+$/);
  const map = new SeatMapPage(page);
  await map.waitForHydration();
  await expect(map.seat("A1")).toHaveAttribute("data-status", "AVAILABLE");
  expect(errors).toEqual([]);
});

test("after hydration, clicking a seat selects it (only the client can do this)", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));

  // Open the seat map directly, so it is rendered by the server, then hydrated.
  const [first] = await showtimeIds(page);
  await page.goto(`/showtimes/${first}`);
  const map = new SeatMapPage(page);
  await expect(map.seat("C3")).toBeVisible();
  await expect(map.selection).toHaveText("Choose up to 8 seats.");
  await map.waitForHydration();

  await map.select("C3", "C4");
  await expect(map.seat("C3")).toHaveAttribute("aria-pressed", "true");
  await expect(map.selection).toHaveText("2 selected: C3, C4");
  await map.seat("C3").click();
  await expect(map.seat("C3")).toHaveAttribute("aria-pressed", "false");
  await expect(map.selection).toHaveText("1 selected: C4");
  expect(errors).toEqual([]);
});
