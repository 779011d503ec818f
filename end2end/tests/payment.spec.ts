import AxeBuilder from "@axe-core/playwright";
import { Browser, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./guarded";
import * as path from "path";
import { Mail, SeatMapPage, SignInPage, onSale, receivedMail, screenshotDir } from "./pages";

// A server with 10-minute holds and the payment sandbox (playwright.config.ts): checkout needs
// at least 3 minutes left on a hold, more than the main test server's 20-second holds.
const shop = `http://127.0.0.1:${Number(process.env.E2E_PAY_PORT ?? 3904)}`;

// An operator signed in, in a browser context of their own, on page `at` of the payment server.
async function operatorOn(browser: Browser, at: string): Promise<{ operator: BrowserContext; admin: Page }> {
  const operator = await browser.newContext();
  const admin = await operator.newPage();
  await admin.goto(`${shop}${at}`);
  await admin.locator('[data-test="sign-in-link"]').click();
  await new SignInPage(admin).signIn("operator", "end-to-end operator password");
  await expect(admin).toHaveURL(`${shop}${at}`);
  return { operator, admin };
}

async function openShowtime(page: import("@playwright/test").Page, index: number): Promise<SeatMapPage> {
  const list = await onSale(page, shop);
  const map = new SeatMapPage(page);
  await page.goto(`${shop}/showtimes/${list[index].id}`);
  await map.waitForHydration();
  return map;
}

test("hold, pay on the gateway's page, and the booking page shows the QR ticket without reloading", async ({ page, browser }) => {
  // A hold, the gateway's page, a payment and the booking page, each waited for by its state:
  // on a loaded 2-core machine that passed 30 s in all.
  test.setTimeout(90_000);
  const map = await openShowtime(page, 0);
  await map.hold("C5", "C6");
  await map.pay("Kim.Min@Example.com");
  await expect(page).toHaveURL(/\/pay\/ps_/);
  await expect(page.locator('[data-test="sandbox-amount"]')).toHaveText(/^[\d,]+ KRW$/);
  await page.locator('[data-test="sandbox-pay"]').click();

  await expect(page).toHaveURL(/\/my-bookings\/[0-9a-f-]+\?/);
  const status = page.locator('[data-test="booking-status"]');
  await expect(status).toHaveAttribute("data-status", "CONFIRMED", { timeout: 10_000 });
  await expect(status).toHaveText("Confirmed. Enjoy the show!");
  await expect(page.locator('[data-test="booking-seats"]')).toHaveText("Seats C5, C6");
  await expect(page.locator('[data-test="ticket-qr"] svg')).toBeVisible();
  // The short booking number the printed ticket carries, in plain view; the long code in the
  // QR code, and folded away for a scanner that cannot read it.
  const bookingId = new URL(page.url()).pathname.split("/").pop()!;
  const number = bookingId.replace(/-/g, "").slice(0, 8).toUpperCase();
  await expect(page.locator('[data-test="booking-number"]')).toHaveText(`Booking number ${number}`);
  await expect(page.locator('[data-test="booking-email"]')).toHaveText("E-mail: k***@example.com");
  await expect(page.locator('[data-test="ticket-code"]')).toBeHidden();
  // Each seat's own ticket, for a party arriving apart: its QR code in view, its long code
  // folded away too.
  await expect(page.locator('[data-test="seat-ticket"]')).toHaveCount(2);
  await expect(page.locator('[data-test="seat-ticket"] .qr svg')).toHaveCount(2);
  await expect(page.locator('[data-test="seat-ticket-code"]').first()).toBeHidden();
  const text = await page.locator('[data-test="ticket-code"]').textContent();
  const code = text!.match(/SEATS2-[0-9a-z]+-[0-9a-f]+-[0-9a-f]+/)![0];
  // The code in the QR verifies at the door; a forged one does not.
  const valid = await page.request.get(`${shop}/tickets/${code}`);
  expect(valid.status()).toBe(200);
  expect((await valid.json()).seats).toEqual(["C5", "C6"]);
  // One hex digit changed (a different one whatever the last digit is).
  const forged = await page.request.get(`${shop}/tickets/${code.slice(0, -1)}${code.endsWith("0") ? "1" : "0"}`);
  expect(forged.status()).toBe(404);
  await expect(page.locator('[data-test="print-ticket"]')).toBeVisible();
  await page.screenshot({ path: path.join(screenshotDir, "booking-ticket.png"), fullPage: true });
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `booking page: ${v.id} (${v.nodes.length}) ${v.help}`)).toEqual([]);

  // The seats are sold on the map, and the booking is in "my bookings".
  const seats = await (await page.request.get(`${shop}/showtimes/${(await onSale(page, shop))[0].id}/seats`)).json();
  expect(seats.seats.find((s: { code: string }) => s.code === "C5").status).toBe("BOOKED");
  await page.goto(`${shop}/my-bookings`);
  await expect(page.locator('[data-test="booking"]').first()).toContainText("Confirmed");
  // In Korean too.
  await page.locator('[data-test="lang-switch"]').click();
  await expect(page.locator('[data-test="booking"]').first()).toContainText("확정");

  // Another device (no cookie of this one): nothing is its own until it finds the booking
  // with its number and the address given at checkout; a wrong address finds nothing.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
  const other = await phone.newPage();
  await other.goto(`${shop}/my-bookings`);
  await expect(other.getByText("You have no bookings yet.")).toBeVisible();
  await other.locator('[data-test="find-booking-link"]').click();
  await expect(other).toHaveURL(`${shop}/find-booking`);
  await expect(other.locator('[data-test="find-booking-page"]')).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
  await other.locator('[data-test="find-reference"]').fill(number.toLowerCase());
  await other.locator('[data-test="find-email"]').fill("kim@example.com");
  await other.locator('[data-test="find-button"]').click();
  await expect(other.locator('[data-test="find-error"]')).toHaveText("No booking has this number and e-mail address. Check both and try again.");
  await other.locator('[data-test="find-email"]').fill("kim.min@example.com");
  await other.locator('[data-test="find-button"]').click();
  await expect(other).toHaveURL(`${shop}/my-bookings/${bookingId}`);
  await expect(other.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED");
  await expect(other.locator('[data-test="ticket-qr"] svg')).toBeVisible();
  // Finding it shows it; cancelling it takes the link e-mailed to its address.
  await expect(other.locator('[data-test="cancel-needs-link"]')).toContainText("k***@example.com");
  await expect(other.locator('[data-test="cancel-booking"]')).toHaveCount(0);
  await other.goto(`${shop}/my-bookings`);
  await expect(other.locator('[data-test="booking"]')).toHaveCount(1);
  await phone.close();

  // The sale reaches the operator's sales page (through the outbox and the sales consumer),
  // for a signed-in operator only.
  const showtimeId = String((await onSale(page, shop))[0].id);
  const denied = await page.request.post(`${shop}/api/sales_figures`, { data: {} });
  expect(denied.status()).toBe(401);
  const { operator, admin: sales } = await operatorOn(browser, "/admin/sales");
  const row = sales.locator(`[data-test="sales-row"][data-showtime="${showtimeId}"]`);
  await expect(row.locator('[data-test="sales-bookings"]')).toHaveText("1");
  await expect(row.locator('[data-test="sales-seats"]')).toHaveText("2");
  await expect(row.locator('[data-test="sales-revenue"]')).toHaveText(/^₩[\d,]+$/);
  // The day's net revenue is a bar of the chart, and the figures download as CSV.
  await expect(sales.locator('[data-test="sales-bar"]').first()).toBeVisible();
  const csv = await sales.request.get(`${shop}/reports/sales.csv`);
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toContain(`,${showtimeId},`);
  await sales.screenshot({ path: path.join(screenshotDir, "operator-sales.png"), fullPage: true });
  const axeSales = await new AxeBuilder({ page: sales }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const seriousSales = axeSales.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(seriousSales.map((v) => `sales page: ${v.id} (${v.nodes.length}) ${v.help}`)).toEqual([]);
  await operator.close();
});

/** Waits for the message to `to` that `wanted` accepts (the server sends it a moment after). */
async function mailTo(to: string, wanted: (m: Mail) => boolean = () => true): Promise<Mail> {
  let found: Mail | undefined;
  await expect(async () => {
    found = receivedMail().find((m) => m.to === to && wanted(m));
    expect(found, `a message to ${to}`).toBeDefined();
  }).toPass({ timeout: 30_000 });
  return found!;
}

test("a phone customer in Korean chooses one adult and one youth ticket, pays, gets the ticket by e-mail, loses the cookie and opens the booking from the e-mail", async ({ browser }) => {
  test.setTimeout(90_000);
  const phone = await browser.newContext({
    locale: "ko-KR",
    extraHTTPHeaders: { "Accept-Language": "ko-KR,ko;q=0.9" },
    viewport: { width: 390, height: 844 },
    hasTouch: true,
  });
  const page = await phone.newPage();
  const map = await openShowtime(page, 0);
  await map.hold("D7", "D8");
  // Two adults at first; one tap makes one of them a youth ticket, at the youth price
  // (standard seats: adult 12,000 won, youth 9,000 won, the demo hall's defaults).
  const types = page.locator('[data-test="ticket-types"]');
  await expect(types).toBeVisible();
  await expect(types).toContainText("청소년");
  await expect(page.locator('[data-test="count-ADULT"]')).toHaveText("2");
  await expect(page.locator('[data-test="hold-total"]')).toContainText("24,000원");
  await page.locator('[data-test="more-YOUTH"]').tap();
  await expect(page.locator('[data-test="count-YOUTH"]')).toHaveText("1");
  await expect(page.locator('[data-test="count-ADULT"]')).toHaveText("1");
  await expect(page.locator('[data-test="hold-total"]')).toContainText("21,000원");
  // "All adult" undoes it; one tap makes it a youth ticket again.
  await page.locator('[data-test="types-reset"]').tap();
  await expect(page.locator('[data-test="count-ADULT"]')).toHaveText("2");
  await page.locator('[data-test="more-YOUTH"]').tap();
  await expect(page.locator('[data-test="hold-total"]')).toContainText("21,000원");
  const address = `lee.${Date.now()}@example.com`;
  await map.pay(address);
  await page.locator('[data-test="sandbox-pay"]').click();
  await expect(page).toHaveURL(/\/my-bookings\/[0-9a-f-]+\?/);
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED", { timeout: 10_000 });
  const bookingId = new URL(page.url()).pathname.split("/").pop()!;
  const number = bookingId.replace(/-/g, "").slice(0, 8).toUpperCase();

  // The ticket arrives at the SMTP server, in the language the customer bought in.
  const mail = await mailTo(address);
  expect(mail.subject).toMatch(/^\[예매 완료\]/);
  expect(mail.text).toContain(`예매 번호: ${number}`);
  expect(mail.text).toContain("좌석: D7 (일반), D8 (청소년), 입장 시 신분 확인");
  expect(mail.text).toContain("21,000원");
  const link = mail.text.match(/http:\/\/\S+\/open\?key=\S+/)![0];

  // The cookies are gone: the booking is nobody's on this phone until the e-mail's link opens it.
  await phone.clearCookies();
  await page.goto(`${shop}/my-bookings`);
  await expect(page.getByText("아직 예매 내역이 없습니다.")).toBeVisible();
  // The link attaches nothing by itself: its page's button confirms.
  await page.goto(link);
  await page.locator('[data-test="open-booking"]').click();
  await expect(page).toHaveURL(`${shop}/my-bookings/${bookingId}`);
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED", { timeout: 10_000 });
  await expect(page.locator('[data-test="ticket-qr"] svg')).toBeVisible();
  // Each seat's type and price, and the door's ID check.
  await expect(page.locator('[data-test="booking-tickets"]')).toHaveText("D7 일반 12,000원 · D8 청소년 9,000원");
  await expect(page.locator('[data-test="check-id"]')).toHaveText("입장 시 신분 확인");
  // Opened from the mailbox, it may be cancelled here.
  await expect(page.locator('[data-test="cancel-booking"]')).toBeVisible();
  await page.goto(`${shop}/my-bookings`);
  await expect(page.locator('[data-test="booking"]')).toHaveCount(1);
  await phone.close();
});

test("a customer cancels their booking on its page; the seats are back on another customer's map at once and the refund notice comes by e-mail", async ({ page, browser }) => {
  test.setTimeout(90_000);
  const map = await openShowtime(page, 1);
  await map.hold("F1", "F2");
  const address = `cancel.${Date.now()}@example.com`;
  await map.pay(address);
  await page.locator('[data-test="sandbox-pay"]').click();
  await expect(page).toHaveURL(/\/my-bookings\/[0-9a-f-]+\?/);
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED", { timeout: 10_000 });
  await expect(page.locator('[data-test="booking-page"]')).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
  await mailTo(address, (m) => m.subject.startsWith("Your tickets:"));

  // Someone else watches the seat map: F1 is sold.
  const watcher = await browser.newContext();
  const watching = await watcher.newPage();
  const other = await openShowtime(watching, 1);
  await expect(other.seat("F1")).toHaveAttribute("data-view", "booked");

  // Cancelling asks first, then gives the seat back and the money.
  await expect(page.locator('[data-test="booking-cancel"]')).toContainText("You can cancel online until");
  await page.locator('[data-test="cancel-booking"]').click();
  await page.locator('[data-test="confirm-cancel-booking"]').click();
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-state", "REFUNDED", { timeout: 15_000 });
  await expect(page.locator('[data-test="booking-status"]')).toContainText("This booking was cancelled");
  // What was given back, and for which seat: not the ₩0 the booking holds now.
  await expect(page.locator('[data-test="booking-refunded"]')).toHaveText(/^Refunded: seats F1, F2, ₩[1-9][0-9,]*$/);
  await expect(page.locator('[data-test="booking-status"]')).not.toContainText("₩0");
  await expect(page.locator('[data-test="ticket-qr"]')).toHaveCount(0);
  await expect(page.locator('[data-test="cancel-booking"]')).toHaveCount(0);
  await expect(other.seat("F1")).toHaveAttribute("data-view", /free|stranded/, { timeout: 10_000 });
  await watcher.close();
  const notice = await mailTo(address, (m) => m.subject.startsWith("Refunded:"));
  expect(notice.text).toMatch(/Your booking has been refunded: ₩[1-9]/);
  expect(notice.text).toContain("Seats refunded: F1, F2\n");
});

test("declining on the gateway's page returns to the hold with a message", async ({ page }) => {
  const map = await openShowtime(page, 1);
  await map.hold("D1");
  // The address the ticket goes to is asked for first.
  await page.locator('[data-test="pay"]').click();
  await expect(map.notice).toHaveText("Enter the e-mail address for your ticket.");
  await expect(page).toHaveURL(/\/showtimes\/\d+$/);
  await map.pay();
  await expect(page).toHaveURL(/\/pay\/ps_/);
  await page.locator('[data-test="sandbox-decline"]').click();
  // The booking page sends the browser back once it has hydrated (a debug bundle, a loaded CPU).
  await expect(page).toHaveURL(/\/showtimes\/\d+\?payment=declined$/, { timeout: 15_000 });
  await map.waitForHydration();
  await expect(map.notice).toHaveText("Your payment was declined. Your seats are still held — you can try again.");
  await expect(map.holdPanel).toBeVisible();
  await expect(map.heldSeats).toHaveText("Seats D1");
});

test("an operator cancels a showtime in the console and the customer's booking page shows the refund", async ({ page, browser }) => {
  // The operator sets up a showtime of their own (so the other tests' showtimes stay on sale).
  const { operator, admin } = await operatorOn(browser, "/admin/halls");
  const stamp = Date.now();
  const plan = {
    name: `Cancel ${stamp}`,
    categories: [{ code: "STANDARD", name: "Standard", price: 9000 }],
    rows: [{ label: "A", seats: [{ number: 1, category: "STANDARD" }, { number: 2, category: "STANDARD" }] }],
  };
  const imported = await admin.request.post(`${shop}/api/import_hall`, { data: { plan } });
  expect(imported.status()).toBe(200);
  const hall = await imported.json();
  const scheduled = await admin.request.post(`${shop}/api/schedule_showtime`, {
    data: { hall_id: hall.id, title: `Cancelled ${stamp}`, starts_at: "2027-02-01T19:30:00+09:00" },
  });
  expect(scheduled.status()).toBe(200);
  const showtimeId = await scheduled.json();

  // A customer buys a seat in it.
  await page.goto(`${shop}/showtimes/${showtimeId}`);
  const map = new SeatMapPage(page);
  await map.waitForHydration();
  await map.hold("A1");
  const address = `refund.${stamp}@example.com`;
  await map.pay(address);
  await page.locator('[data-test="sandbox-pay"]').click();
  await expect(page).toHaveURL(/\/my-bookings\/[0-9a-f-]+\?/);
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED", { timeout: 10_000 });
  const booking = page.url().split("?")[0];

  // Someone else is looking at its seat map.
  const watcher = await browser.newContext();
  const watching = await watcher.newPage();
  await watching.goto(`${shop}/showtimes/${showtimeId}`);
  await new SeatMapPage(watching).waitForHydration();
  await expect(watching.locator('[data-test="sales-closed"]')).toHaveCount(0);

  // The operator cancels it (two presses) and watches the refund go through.
  await admin.reload();
  const row = admin.locator(`[data-test="showtime-count"][data-showtime="${showtimeId}"]`);
  await row.locator('[data-test="cancel-showtime"]').click();
  await row.locator('[data-test="confirm-cancel"]').click();
  await expect(admin.locator('[data-test="halls-notice"]')).toContainText("1 paid bookings being refunded");
  // The watcher's map says so at once, without reloading.
  await expect(watching.locator('[data-test="sales-closed"]')).toHaveText("This showtime was cancelled. Paid bookings are refunded.");
  await watcher.close();
  await expect(async () => {
    await admin.reload();
    await expect(row.locator('[data-test="refund-progress"]')).toHaveAttribute("data-refunded", "1", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await admin.screenshot({ path: path.join(screenshotDir, "admin-cancelled.png"), fullPage: true });

  // The customer's booking page says so; the seat map sells nothing.
  await page.goto(booking);
  const cancelled = page.locator('[data-test="booking-cancelled"]');
  await expect(cancelled).toHaveAttribute("data-state", "CANCELLED_REFUNDED", { timeout: 15_000 });
  await expect(cancelled).toHaveText("This showtime was cancelled — refunded.");
  await expect(page.locator('[data-test="ticket-qr"]')).toHaveCount(0);
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `cancelled booking: ${v.id} (${v.nodes.length}) ${v.help}`)).toEqual([]);
  await page.goto(`${shop}/showtimes/${showtimeId}`);
  await expect(page.locator('[data-test="sales-closed"]')).toHaveText("This showtime was cancelled. Paid bookings are refunded.");
  // The customer had the ticket by e-mail, and now the notice of the cancellation and refund.
  await mailTo(address, (m) => m.subject.startsWith("Your tickets:"));
  const notice = await mailTo(address, (m) => m.subject.startsWith("Cancelled and refunded:"));
  expect(notice.text).toContain(`the showing of Cancelled ${stamp}`);
  expect(notice.text).toContain("has been refunded");
  // The console lists both messages, sent.
  // (The SMTP server keeps a message a moment before the sender records it sent.)
  const sent = admin.locator('[data-test="outgoing-mail-row"][data-status="sent"]');
  const number = booking.split("/").pop()!.replace(/-/g, "").slice(0, 8).toUpperCase();
  await expect(async () => {
    await admin.goto(`${shop}/admin/bookings`);
    await expect(sent.filter({ hasText: number })).toHaveCount(2, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await operator.close();
});

test("an operator builds a hall in the editor and schedules it with two prices; a customer pays and the sale is in the report", async ({ page, browser }) => {
  const { operator, admin } = await operatorOn(browser, "/admin/halls");

  // A two-row hall: STANDARD in front, VIP behind.
  const stamp = Date.now();
  const editor = admin.locator('[data-test="layout-editor"]');
  await editor.locator('[data-test="editor-name"]').fill(`Small ${stamp}`);
  const categories = editor.locator('[data-test="editor-category"]');
  await categories.nth(1).locator('[data-test="category-code"]').fill("VIP");
  await categories.nth(1).locator('[data-test="category-name"]').fill("VIP");
  await categories.nth(1).locator('[data-test="category-price"]').fill("20000");
  const rows = editor.locator('[data-test="editor-row"]');
  await rows.nth(2).getByRole("button").click();
  await rows.nth(0).locator('[data-test="row-seats"]').fill("4");
  await rows.nth(1).locator('[data-test="row-seats"]').fill("4");
  await rows.nth(1).locator('[data-test="row-category"]').fill("VIP");
  // The rows' aisle after seat 4 is now past their last seat: named, not dropped.
  await expect(editor.locator('[data-test="editor-problems"]')).toContainText("an aisle after seat 4, the last");
  await rows.nth(0).locator('[data-test="row-aisles"]').fill("");
  await rows.nth(1).locator('[data-test="row-aisles"]').fill("");
  await expect(editor.locator('[data-test="editor-count"]')).toHaveText("8 seats");
  await editor.locator('[data-test="editor-create"]').click();
  await expect(admin.locator('[data-test="halls-notice"]')).toContainText(`Small ${stamp}`);

  // Scheduled with its own VIP price; STANDARD at the hall's.
  const title = `Two prices ${stamp}`;
  await admin.locator('[data-test="schedule-hall"]').selectOption({ label: `Small ${stamp}` });
  await admin.locator('[data-test="schedule-title"]').fill(title);
  await admin.locator('[data-test="schedule-when"]').fill("2027-01-15T20:00");
  await expect(admin.locator('[data-test="schedule-price-STANDARD"]')).toHaveValue("12000");
  await admin.locator('[data-test="schedule-price-VIP"]').fill("23000");
  await admin.locator('[data-test="schedule-button"]').click();
  await expect(admin.locator('[data-test="halls-notice"]')).toContainText("scheduled");
  const list: { id: number; movieTitle: string }[] = await (await admin.request.get(`${shop}/showtimes`)).json();
  const showtimeId = list.find((s) => s.movieTitle === title)!.id;

  // A customer in another browser pays for a VIP and a STANDARD seat.
  await page.goto(`${shop}/showtimes/${showtimeId}`);
  const map = new SeatMapPage(page);
  await map.waitForHydration();
  await map.hold("A1", "B1");
  await map.pay();
  await expect(page.locator('[data-test="sandbox-amount"]')).toHaveText("35,000 KRW");
  await page.locator('[data-test="sandbox-pay"]').click();
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED", { timeout: 10_000 });

  // The operator's report has the sale, online, at what was paid.
  await expect(async () => {
    await admin.goto(`${shop}/admin/sales`);
    const row = admin.locator(`[data-test="sales-row"][data-showtime="${showtimeId}"]`);
    await expect(row.locator('[data-test="sales-revenue"]')).toHaveText("₩35,000", { timeout: 1_000 });
    await expect(row.locator('[data-test="sales-channel"]')).toHaveText("Online", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await operator.close();
});
