import AxeBuilder from "@axe-core/playwright";
import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./guarded";
import * as fs from "fs";
import * as path from "path";
import { SeatMapPage, SignInPage } from "./pages";

// The main test server runs the embedded default: its first start made the staff account
// `operator` with a random password kept in its data folder, as on a new machine.
const dataDir = process.env.E2E_DATA_DIR ?? path.join(__dirname, "..", "..", "target", "e2e-data");
const operatorPassword = () => fs.readFileSync(path.join(dataDir, "operator.password"), "utf8").trim();

async function axeClean(page: Page, what: string) {
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${what}: ${v.id} (${v.nodes.length}) ${v.help}`)).toEqual([]);
}

test("an operator signs in, sees the console, creates and revokes an API token, and signs out", async ({ page }) => {
  // Without a session the console offers to sign in, and comes back after.
  await page.goto("/admin/tokens");
  await expect(page.locator('[data-test="staff-refusal"]')).toBeVisible();
  await page.locator('[data-test="sign-in-link"]').click();
  await expect(page).toHaveURL(/\/staff\/sign-in\?next=\/admin\/tokens$/);
  const signIn = new SignInPage(page);
  await axeClean(page, "sign-in page");
  await signIn.signIn("operator", "not the password at all");
  await expect(signIn.error).toContainText("Wrong name or password");
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "staff-sign-in.png"), fullPage: true });
  await signIn.signIn("operator", operatorPassword());
  await expect(page).toHaveURL(/\/admin\/tokens$/);

  // On a phone the header wraps by whole words: each place of the console on one line.
  await page.setViewportSize({ width: 390, height: 844 });
  const places = page.locator('[data-test="staff-place"]');
  // (The header lists them once it knows who is signed in.)
  await expect.poll(() => places.count()).toBeGreaterThanOrEqual(3);
  for (const place of await places.all()) {
    expect((await place.boundingBox())!.height).toBeLessThanOrEqual(48);
  }
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "staff-header-phone.png") });
  await page.setViewportSize({ width: 1280, height: 720 });

  // An API token: shown once, usable for the sales report, revoked at once.
  await page.locator('[data-test="token-name"]').fill("finance export");
  await page.locator('[data-test="token-create"]').click();
  const secret = (await page.locator('[data-test="token-secret"]').textContent())!.trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  const report = () => page.request.get("/reports/sales", { headers: { Authorization: `Bearer ${secret}` } });
  expect((await report()).status()).toBe(200);
  await axeClean(page, "tokens page");
  await page.locator('[data-test="token-row"]').first().locator('[data-test="token-revoke"]').click();
  await expect(page.locator('[data-test="token-row"]').first().locator('[data-test="token-revoke"]')).toHaveCount(0);
  expect((await report()).status()).toBe(401);

  // The audit log has all of it, newest first.
  await page.goto("/admin/audit");
  const actions = page.locator('[data-test="audit-row"]');
  await expect(actions.first()).toHaveAttribute("data-action", "api_token_revoked");
  await expect(page.locator('[data-test="audit-row"][data-action="sign_in_failed"]').first()).toBeVisible();
  await axeClean(page, "audit page");
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "admin-audit.png"), fullPage: true });

  // Home, then signing out ends the session.
  await page.goto("/admin");
  await expect(page.locator('[data-test="signed-in-as"]')).toContainText("operator");
  // Her own kiosk PIN, set with her password; and the staff list shows it, with a reset there.
  // (The forms act once the page has hydrated: wait for its marks.)
  await expect(page.locator('[data-test="hydrated"][data-done="false"]')).toHaveCount(0, { timeout: 15_000 });
  await page.locator('[data-test="pin-password"]').fill(operatorPassword());
  await page.locator('[data-test="new-pin"]').fill("2468");
  await page.locator('[data-test="set-pin"]').click();
  await expect(page.locator('[data-test="pin-done"]')).toContainText("Your PIN is set", { timeout: 15_000 });
  await page.reload();
  await expect(page.locator('[data-test="hydrated"][data-done="false"]')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator('[data-test="staff-row"][data-member="operator"]')).toContainText("set");
  await page.locator('[data-test="reset-member"]').fill("operator");
  await page.locator('[data-test="reset-pin"]').fill("1357");
  await page.locator('[data-test="reset-pin-submit"]').click();
  await expect(page.locator('[data-test="reset-done"]')).toContainText("The PIN was changed", { timeout: 15_000 });

  // Hiring and letting go, without a shell: a clerk added here signs in at once; disabled, her
  // session ends and her password opens nothing. The operator cannot disable herself.
  const clerk = `clerk-${Date.now()}`;
  const clerkPassword = "a first password for the clerk";
  await page.locator('[data-test="add-member"]').fill(clerk);
  await page.locator('[data-test="add-role"]').selectOption("clerk");
  await page.locator('[data-test="add-password"]').fill("too short");
  await page.locator('[data-test="add-member-submit"]').click();
  await expect(page.locator('[data-test="add-done-error"]')).toContainText("12 to 256 characters");
  await page.locator('[data-test="add-password"]').fill(clerkPassword);
  await page.locator('[data-test="add-member-submit"]').click();
  await expect(page.locator('[data-test="add-done"]')).toContainText("Added");
  const clerkRow = page.locator(`[data-test="staff-row"][data-member="${clerk}"]`);
  await expect(clerkRow).toHaveAttribute("data-disabled", "false");
  await expect(clerkRow.locator("td").nth(1)).toHaveText("clerk");
  const kiosk = await (await page.context().browser()!.newContext()).newPage();
  await kiosk.goto("/staff/sign-in");
  await new SignInPage(kiosk).signIn(clerk, clerkPassword);
  await expect(kiosk).not.toHaveURL(/sign-in/);
  expect((await kiosk.request.post("/api/staff_me", { data: {} })).status()).toBe(200);
  await page.locator('[data-test="reset-member"]').fill("operator");
  await page.locator('[data-test="disable-member"]').click();
  await expect(page.locator('[data-test="reset-done-error"]')).toContainText("your own account");
  await page.locator('[data-test="reset-member"]').fill(clerk);
  await page.locator('[data-test="disable-member"]').click();
  await expect(page.locator('[data-test="reset-done"]')).toContainText("Disabled");
  await expect(clerkRow).toHaveAttribute("data-disabled", "true");
  expect((await kiosk.request.post("/api/staff_me", { data: {} })).status()).toBe(401);
  const again = await kiosk.request.post("/api/staff_sign_in", { data: { name: clerk, password: clerkPassword } });
  expect(again.status()).toBe(401);
  await kiosk.context().close();
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "admin-staff.png"), fullPage: true });
  await axeClean(page, "console home");
  await page.locator('[data-test="sign-out"]').click();
  await expect(page).toHaveURL(/\/staff\/sign-in$/);
  await page.goto("/admin");
  await expect(page.locator('[data-test="staff-refusal"]')).toBeVisible();
  expect((await page.request.post("/api/staff_me", { data: {} })).status()).toBe(401);
});

test("an operator builds a hall in the editor, imports another from its plan, and schedules a showtime that a customer then holds seats in", async ({ page, browser }) => {
  await page.goto("/admin/halls");
  await page.locator('[data-test="sign-in-link"]').click();
  await new SignInPage(page).signIn("operator", operatorPassword());
  await expect(page).toHaveURL(/\/admin\/halls$/);
  await axeClean(page, "halls page");

  const stamp = Date.now();
  const hallName = `Studio ${stamp}`;
  const plan = {
    name: hallName,
    categories: [
      { code: "STANDARD", name: "Standard", price: 11000, ticketPrices: { YOUTH: 8000 } },
      { code: "VIP", name: "VIP", price: 20000, ticketPrices: { YOUTH: 15000 } },
    ],
    rows: [
      { label: "A", seats: [{ number: 1, category: "STANDARD" }, { number: 2, category: "STANDARD", companion: true }, { gap: 1 }, { number: 3, category: "STANDARD", wheelchair: true }] },
      { label: "B", seats: [{ number: 1, category: "VIP" }, { number: 2, category: "VIP" }] },
    ],
  };
  // A mistake first: every problem is named and nothing is made.
  await page.locator('[data-test="hall-plan"]').fill(JSON.stringify({ ...plan, rows: [{ label: "A", seats: [{ number: 1, category: "BALCONY" }] }] }));
  await page.locator('[data-test="import-button"]').click();
  await expect(page.locator('[data-test="halls-error"]')).toContainText("BALCONY");
  await page.locator('[data-test="hall-plan"]').fill(JSON.stringify(plan));
  await page.locator('[data-test="import-button"]').click();
  await expect(page.locator('[data-test="halls-notice"]')).toContainText(hallName);
  const row = page.locator('[data-test="hall-row"]', { hasText: hallName });
  await expect(row).toContainText("5");

  // The same small hall built in the layout editor, previewed by the customers' seat map.
  const editor = page.locator('[data-test="layout-editor"]');
  const edited = `Editor ${stamp}`;
  await editor.locator('[data-test="editor-name"]').fill(edited);
  const categories = editor.locator('[data-test="editor-category"]');
  await categories.nth(0).locator('[data-test="category-price"]').fill("11000");
  await categories.nth(1).locator('[data-test="category-code"]').fill("VIP");
  await categories.nth(1).locator('[data-test="category-name"]').fill("VIP");
  await categories.nth(1).locator('[data-test="category-price"]').fill("20000");
  // Youth tickets in both categories; an empty column is a type not sold.
  const typePrice = (category: number, type: string) => categories.nth(category).locator(`[data-test="category-type-price"][data-type="${type}"]`);
  await typePrice(0, "YOUTH").fill("8000");
  await typePrice(1, "YOUTH").fill("15000");
  const rows = editor.locator('[data-test="editor-row"]');
  await rows.nth(2).getByRole("button").click();
  await expect(rows).toHaveCount(2);
  await rows.nth(0).locator('[data-test="row-seats"]').fill("3");
  await rows.nth(0).locator('[data-test="row-aisles"]').fill("2");
  await rows.nth(0).locator('[data-test="row-wheelchair"]').fill("3");
  await rows.nth(0).locator('[data-test="row-companion"]').fill("2");
  await rows.nth(1).locator('[data-test="row-seats"]').fill("2");
  await rows.nth(1).locator('[data-test="row-aisles"]').fill("");
  await rows.nth(1).locator('[data-test="row-category"]').fill("VIP");
  await expect(editor.locator('[data-test="editor-count"]')).toHaveText("5 seats");
  const preview = editor.locator('[data-test="plan-preview"]');
  await expect(preview.locator('[data-test^="seat-"]:not([data-test="seat-grid"])')).toHaveCount(5);
  await expect(preview.locator('[data-test="seat-A3"]')).toHaveAttribute("aria-label", /wheelchair/i);
  await expect(preview.locator('[data-test="seat-A2"]')).toHaveAttribute("aria-label", /companion seat/);
  // Each category has its own look, not by colour alone: VIP's seats carry a pattern.
  const look = (seat: Locator) => seat.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).backgroundImage]);
  const [standardLook, vipLook] = [await look(preview.locator('[data-test="seat-A1"]')), await look(preview.locator('[data-test="seat-B1"]'))];
  expect(standardLook[1]).toBe("none");
  expect(vipLook[1]).toContain("gradient");
  expect(vipLook[0]).not.toBe(standardLook[0]);
  // A mistake is named before anything is made.
  await rows.nth(1).locator('[data-test="row-category"]').fill("GOLD");
  await expect(editor.locator('[data-test="editor-problems"]')).toContainText("GOLD");
  await rows.nth(1).locator('[data-test="row-category"]').fill("VIP");
  // A type priced in one category only is a mistake too, named by the category that lacks it.
  await typePrice(0, "SENIOR").fill("6000");
  await typePrice(0, "YOUTH").focus();
  await expect(editor.locator('[data-test="editor-problems"]')).toContainText(/Category VIP's ticket-type prices/);
  await typePrice(0, "SENIOR").fill("");
  await expect(editor.locator('[data-test="editor-problems"]')).toHaveCount(0);
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "admin-editor.png"), fullPage: true });
  await editor.locator('[data-test="editor-create"]').click();
  await expect(page.locator('[data-test="halls-notice"]')).toContainText(edited);
  await expect(page.locator('[data-test="hall-row"]', { hasText: edited })).toContainText("5");
  // Exported, it is the same plan as the imported one under another name.
  const halls: { id: number; name: string }[] = await (await page.request.post("/api/halls", { data: {} })).json();
  const plans = await Promise.all(
    [hallName, edited].map(async (name) => {
      const id = halls.find((h) => h.name === name)!.id;
      const exported = await (await page.request.post("/api/export_hall", { data: { hall_id: id } })).json();
      return JSON.stringify({ ...exported, name: "" });
    }),
  );
  expect(plans[1]).toBe(plans[0]);
  // A hall in use never changes: it is edited as a new hall, its rows read back into the editor.
  await page.locator('[data-test="hall-row"]', { hasText: hallName }).locator('[data-test="hall-edit-button"]').click();
  await expect(editor.locator('[data-test="editor-name"]')).toHaveValue(`${hallName} (2)`);
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0).locator('[data-test="row-aisles"]')).toHaveValue("2");
  await expect(rows.nth(0).locator('[data-test="row-wheelchair"]')).toHaveValue("3");
  await expect(rows.nth(0).locator('[data-test="row-companion"]')).toHaveValue("2");
  await expect(rows.nth(1).locator('[data-test="row-category"]')).toHaveValue("VIP");
  await expect(typePrice(1, "YOUTH")).toHaveValue("15000");
  await expect(typePrice(1, "SENIOR")).toHaveValue("");
  await expect(editor.locator('[data-test="editor-count"]')).toHaveText("5 seats");

  const title = `Premiere ${stamp}`;
  await page.locator('[data-test="schedule-hall"]').selectOption({ label: edited });
  await page.locator('[data-test="schedule-title"]').fill(title);
  await page.locator('[data-test="schedule-when"]').fill("2027-03-01T19:30");
  // Two price categories: VIP at this showtime's own price, STANDARD at the hall's.
  const vip = page.locator('[data-test="schedule-price-VIP"]');
  await expect(vip).toHaveValue("20000");
  await expect(page.locator('[data-test="schedule-price-STANDARD"]')).toHaveValue("11000");
  await vip.fill("24000");
  // Youth tickets sold, VIP's youth price changed for this showtime.
  await expect(page.locator('[data-test="schedule-type-YOUTH"]')).toBeChecked();
  await expect(page.locator('[data-test="schedule-price-STANDARD/YOUTH"]')).toHaveValue("8000");
  await expect(page.locator('[data-test="schedule-price-VIP/YOUTH"]')).toHaveValue("15000");
  await page.locator('[data-test="schedule-price-VIP/YOUTH"]').fill("16000");
  await page.locator('[data-test="schedule-minutes"]').fill("95");
  await page.locator('[data-test="schedule-hot"]').check();
  await page.locator('[data-test="schedule-button"]').click();
  await expect(page.locator('[data-test="halls-notice"]')).toContainText("scheduled");
  // Said where the operator is: at the form, far down the page, not only at its top.
  await expect(page.locator('[data-test="halls-notice"]')).toBeInViewport();
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);

  // A customer in another browser finds it (venue time 19:30 is 10:30 UTC) and holds two VIP seats.
  const list: { id: number; movieTitle: string; startsAt: string; seatsTotal: number }[] = await (await page.request.get("/showtimes")).json();
  const showtime = list.find((s) => s.movieTitle === title)!;
  expect(showtime.startsAt).toBe("2027-03-01T10:30:00Z");
  expect(showtime.seatsTotal).toBe(5);
  const customer = await browser.newContext();
  const shopper = await customer.newPage();
  await shopper.goto(`/showtimes/${showtime.id}`);
  const map = new SeatMapPage(shopper);
  await map.waitForHydration();
  const vipSeat = await (await page.request.get(`/showtimes/${showtime.id}/seats`)).json();
  const prices = Object.fromEntries(vipSeat.seats.map((s: { code: string; price: number }) => [s.code, s.price]));
  expect([prices.B1, prices.A1]).toEqual([24000, 11000]);
  const youth = Object.fromEntries(vipSeat.categories.map((c: { code: string; ticketPrices: { YOUTH?: number } }) => [c.code, c.ticketPrices?.YOUTH]));
  expect(youth).toEqual({ STANDARD: 8000, VIP: 16000 });
  // The legend gives each category with its look and its price at this showtime.
  const legend = shopper.locator('[data-test="legend-category"]');
  await expect(legend).toHaveText([/standard.*₩11,000/i, /VIP.*₩24,000/]);
  expect((await look(legend.nth(1).locator(".swatch")))[1]).toContain("gradient");
  expect((await look(map.seat("B1")))[1]).toContain("gradient");
  await map.hold("B1", "B2");
  // The operator's list counts them as held.
  await page.reload();
  const counted = page.locator(`[data-test="showtime-count"][data-showtime="${showtime.id}"]`);
  await expect(counted.locator('[data-test="count-held"]')).toHaveText("2");
  await expect(counted.locator('[data-test="count-free"]')).toHaveText("3");
  await expect(counted.locator('[data-test="hot-sale"]')).toBeVisible();
  await expect(counted).toContainText("21:05");
  await page.screenshot({ path: path.join(__dirname, "..", "..", "docs", "screenshots", "admin-halls.png"), fullPage: true });
  await customer.close();
});
