import { type APIResponse, type Browser, type Page } from "@playwright/test";
import { expect, test } from "./guarded";
import * as fs from "fs";
import * as path from "path";
import { SeatMapPage, SignInPage, onSale, screenshotDir } from "./pages";

const dataDir = process.env.E2E_DATA_DIR ?? path.join(__dirname, "..", "..", "target", "e2e-data");
const operatorPassword = () => fs.readFileSync(path.join(dataDir, "operator.password"), "utf8").trim();

/** The operator's console, signed in, with the room form of /admin/halls ready. */
async function operatorConsole(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/staff/sign-in?next=/admin/halls");
  await new SignInPage(page).signIn("operator", operatorPassword());
  await expect(page).toHaveURL(/\/admin\/halls$/);
  await expect(page.locator('[data-test="room-form"]')).toBeVisible();
  return page;
}

async function setRoom(admin: Page, showtime: number, on: boolean, maxActive: number, proofBits = 0) {
  // The select's options come with the schedule; the form acts once the page has hydrated.
  await expect(admin.locator(`[data-test="room-showtime"] option[value="${showtime}"]`)).toHaveCount(1, { timeout: 15_000 });
  await admin.locator('[data-test="room-showtime"]').selectOption(String(showtime));
  await expect(admin.locator('[data-test="room-figures"]')).toBeVisible({ timeout: 15_000 });
  await admin.locator('[data-test="room-on"]').setChecked(on);
  await admin.locator('[data-test="room-max"]').fill(String(maxActive));
  await admin.locator('[data-test="room-rate"]').fill("60");
  await admin.locator('[data-test="room-proof"]').fill(String(proofBits));
  await admin.locator('[data-test="room-save"]').click();
  await expect(admin.locator('[data-test="room-error"]')).toHaveCount(0);
  await expect(admin.locator('[data-test="room-on"]')).toBeChecked({ checked: on });
}

/** A shopper's waiting page, once it has its place. */
async function queue(page: Page, showtime: number) {
  await page.goto(`/showtimes/${showtime}/waiting-room`);
  await expect(page.locator('[data-test="queue-page"]')).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
}

/** A shopper with nobody ahead and room inside: the room's page lets them in by itself (within
 * a second; under load sooner than a test sees the page), and the seat map opens. */
async function enterThroughRoom(page: Page, showtime: number) {
  await page.goto(`/showtimes/${showtime}/waiting-room`);
  await expect(page).toHaveURL(new RegExp(`/showtimes/${showtime}$`), { timeout: 30_000 });
}

/** The showtimes of the suite's schedule, a different one for each repeat of a test (a room
 * turned off keeps its admissions until they end: a repeat on the same showtime would find
 * its last run's shoppers still inside). */
async function hotShowtime(admin: Page, fromEnd: number): Promise<number> {
  // The demo's halls (on a shared database other specs add small halls of their own).
  const ids = (await onSale(admin)).filter((s) => s.seatsTotal >= 50).map((s) => s.id);
  return ids[ids.length - 1 - fromEnd - 2 * test.info().repeatEachIndex];
}

test("three shoppers queue for a hot showtime with one inside at a time: a cancel lets the next in, the third still waits", async ({ browser }) => {
  test.setTimeout(90_000);
  const admin = await operatorConsole(browser);
  const showtime = await hotShowtime(admin, 0);
  await setRoom(admin, showtime, true, 1);
  try {
    const first = await (await browser.newContext()).newPage();
    const second = await (await browser.newContext()).newPage();
    // The third on a phone, in Korean.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      locale: "ko-KR",
      extraHTTPHeaders: { "Accept-Language": "ko-KR,ko;q=0.9" },
    });
    const third = await phone.newPage();

    // The programme sends a customer to the room, not to the seat map.
    await first.goto("/");
    await expect(first.locator(`[data-test="showtime-${showtime}"]`)).toHaveAttribute("data-queue", "true");
    // Admitted (nobody ahead): the seat map opens by itself, and holds.
    await enterThroughRoom(first, showtime);
    const map = new SeatMapPage(first);
    await map.waitForHydration();
    await map.hold("A1");

    // The second waits with nobody ahead; the third with one ahead, in Korean.
    await queue(second, showtime);
    await expect(second.locator('[data-test="queue-page"]')).toHaveAttribute("data-state", "waiting");
    await expect(second.locator('[data-test="queue-ahead"]')).toHaveText("0");
    // Why the wait: the room is full (one inside of one), what lets the next in, and how long
    // it can take at most before the room has a pace to measure.
    await expect(second.locator('[data-test="queue-full"]')).toContainText("at most 1 at a time; choosing now: 1.");
    await expect(second.locator('[data-test="queue-wait"]')).toHaveText(/^At most about \d+ min to wait: each person inside has at most \d+ min$/);
    await queue(third, showtime);
    await expect(third.locator('[data-test="queue-page"] h1')).toHaveText("대기열");
    await expect(third.locator('[data-test="queue-ahead"]')).toHaveText("1");
    await expect(third.locator('[data-test="queue-position"]')).toHaveText("2");
    // Straight to the seat map is no way round: back to the room.
    const sneaky = await (await browser.newContext()).newPage();
    await sneaky.goto(`/showtimes/${showtime}`);
    // The seat map sends it on once hydrated (a debug bundle under load: seconds).
    await expect(sneaky).toHaveURL(new RegExp(`/showtimes/${showtime}/waiting-room$`), { timeout: 15_000 });
    await sneaky.context().close();

    // The first cancels: within seconds the second is let in and holds.
    await map.cancelButton.click();
    await expect(map.holdPanel).toHaveCount(0);
    await expect(second).toHaveURL(new RegExp(`/showtimes/${showtime}$`), { timeout: 20_000 });
    const secondMap = new SeatMapPage(second);
    await secondMap.waitForHydration();
    // The third, waiting, sees what is left of each category, live: the seat the second holds
    // leaves its category's count.
    type Seat = { code: string; category: string; status: string };
    let free = 0;
    let left = third.locator('[data-test="queue-left"]');
    // (Once the page's frame and the seat map agree: both may be a second behind the cancel.)
    await expect(async () => {
      const seats: Seat[] = (await (await third.request.get(`/showtimes/${showtime}/seats`)).json()).seats;
      const category = seats.find((s) => s.code === "B1")!.category;
      free = seats.filter((s) => s.category === category && s.status === "AVAILABLE").length;
      left = third.locator(`[data-test="queue-left"][data-category="${category}"]`);
      expect(await left.getAttribute("data-free")).toBe(String(free));
    }).toPass({ timeout: 10_000 });
    await expect(left).toContainText(`${free}석 남음`);
    await secondMap.hold("B1");
    await expect(left).toHaveAttribute("data-free", String(free - 1));

    // The third is next now, and still waits.
    await expect(third.locator('[data-test="queue-ahead"]')).toHaveText("0", { timeout: 10_000 });
    await expect(third.locator('[data-test="queue-page"]')).toHaveAttribute("data-state", "waiting");
    await expect(third.locator('[data-test="queue-full"]')).toContainText("지금 1명이 고르고 있습니다");
    await third.screenshot({ path: path.join(screenshotDir, "waiting-room-phone.png"), fullPage: true });
    await secondMap.cancelButton.click();
    await expect(third).toHaveURL(new RegExp(`/showtimes/${showtime}$`), { timeout: 20_000 });
  } finally {
    await setRoom(admin, showtime, false, 1);
  }
});

test("a room that asks a proof of work: a phone's page solves it by itself and takes its place", async ({ browser }) => {
  test.setTimeout(90_000);
  const admin = await operatorConsole(browser);
  const showtime = await hotShowtime(admin, 1);
  await setRoom(admin, showtime, true, 1, 16);
  await expect(admin.locator('[data-test="room-proof"]')).toHaveValue("16");
  try {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await phone.newPage();
    // A mid-range phone: the CPU four times slower.
    const cdp = await phone.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    // Someone inside already, so the phone waits in line rather than going to the seat map.
    const inside = await (await browser.newContext()).newPage();
    // Another instance of a cluster may hold the room's settings for a second more (409: no
    // room); those answers change nothing.
    let asked: APIResponse | undefined;
    await expect(async () => {
      asked = await inside.request.post(`/showtimes/${showtime}/queue`);
      expect(asked.status()).toBe(403);
    }).toPass({ timeout: 10_000 });
    expect((await asked!.json()).code).toBe("PROOF_REQUIRED");
    await enterThroughRoom(inside, showtime);

    // What the page showed while it joined: the proof's notice as a notice, never an error.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-test="queue-proof"], [data-test="queue-error"]')) {
          const what = `${el.getAttribute("data-test")} ${el.getAttribute("role")} ${el.className}`;
          if (!seen.includes(what)) seen.push(what);
        }
      }).observe(document, { subtree: true, childList: true });
    });
    const started = Date.now();
    await queue(page, showtime);
    await expect(page.locator('[data-test="queue-page"]')).toHaveAttribute("data-state", "waiting", { timeout: 60_000 });
    console.log(`proof of 16 bits solved and place taken ${Date.now() - started} ms after navigation, page load and hydration included (debug build, CPU ×4 slower)`);
    await expect(page.locator('[data-test="queue-ahead"]')).toHaveText("0");
    await expect(page.locator('[data-test="queue-error"]')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toEqual(["queue-proof status notice info"]);
    await phone.close();
    await inside.context().close();
  } finally {
    await setRoom(admin, showtime, false, 1);
  }
});
