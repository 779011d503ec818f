import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./guarded";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { SeatMapPage, cutLabels, onSale } from "./pages";

// Every page in Korean: a customer's, the console's, the kiosk's and the door's, walked as a
// Korean browser sees them (Accept-Language ko), on the payment server (10-minute holds, the
// payment sandbox, an operator with a known password). On each, every text a person sees or
// hears (the page's text, labels read aloud, placeholders, titles) is checked against the locale
// file: no English text of the locale, and no locale key, may be on a Korean page. Names people
// gave things (films, halls, staff, registers) are data, not text of the product, and are left
// out first.

const root = path.join(__dirname, "..", "..");
const shop = `http://127.0.0.1:${Number(process.env.E2E_PAY_PORT ?? 3904)}`;
const dataDir = `${process.env.E2E_DATA_DIR ?? path.join(root, "target", "e2e-data")}/payments`;
const serverBin = process.env.E2E_SERVER_BIN ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, "target"), "debug", "server");
const OPERATOR_PASSWORD = "end-to-end operator password";
const PASSWORD = "korean kiosk staff password";
const stamp = Date.now().toString(36);

/** The locale file: each key with its English and Korean text. */
function locale(): { key: string; en: string; ko: string }[] {
  const lines = [["customer", "app.yml"], ["staff", "staff.yml"]]
    .map(([folder, file]) => fs.readFileSync(path.join(root, "app", "locales", folder, file), "utf8"))
    .join("\n")
    .split("\n");
  const entries = [];
  for (let i = 0; i < lines.length; i++) {
    const key = lines[i].match(/^([A-Za-z0-9_.]+):$/);
    if (!key) continue;
    const text = (l: string | undefined, lang: string) =>
      l?.trim().startsWith(`${lang}:`) ? l.trim().slice(lang.length + 1).trim().replace(/^"|"$/g, "") : "";
    entries.push({ key: key[1], en: text(lines[i + 1], "en"), ko: text(lines[i + 2], "ko") });
  }
  return entries;
}

const entries = locale();
const words = (text: string) => (text.replace(/%\{[a-z_]+\}/g, " ").match(/[A-Za-z]{3,}/g) ?? []).map((w) => w.toLowerCase());
/** Words of the English texts that no Korean text uses (those that do: PIN, QR, the brand). */
const english = (() => {
  const korean = new Set(entries.flatMap((e) => words(e.ko)));
  return new Set(entries.flatMap((e) => words(e.en)).filter((w) => !korean.has(w)));
})();
const keys = new Set(entries.map((e) => e.key));

/** What a person sees or hears on the page: its text, and the labels, titles and placeholders. */
async function pageText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const said: string[] = [document.body.innerText, document.title];
    for (const el of Array.from(document.querySelectorAll("[aria-label], [title], [placeholder], img[alt]"))) {
      const style = window.getComputedStyle(el);
      if (style.display === "none" || el.closest("[hidden]")) continue;
      for (const attr of ["aria-label", "title", "placeholder", "alt"]) {
        const v = el.getAttribute(attr);
        if (v) said.push(v);
      }
    }
    return said.join("\n");
  });
}

/** Fails on English text of the locale or a locale key on the page, after taking out `data`. */
async function allKorean(page: Page, what: string, data: string[]) {
  await expect(page.locator("html")).toHaveAttribute("lang", "ko");
  // Ticket codes are data, not language: their random hex can spell a word ("…5add-H10…").
  let text = (await pageText(page)).replace(/SEATS\d+-[0-9A-Za-z-]+/g, " ");
  // Longest first, so a title is taken out before a word of it.
  for (const d of [...data].sort((a, b) => b.length - a.length)) {
    if (d) text = text.split(d).join(" ");
  }
  const found = new Set<string>();
  for (const line of text.split("\n")) {
    for (const w of words(line)) {
      if (english.has(w)) found.add(`${w} in «${line.trim().slice(0, 100)}»`);
    }
    for (const k of line.match(/[a-z_]+(\.[A-Za-z0-9_]+)+/g) ?? []) {
      if (keys.has(k)) found.add(`key ${k} in «${line.trim().slice(0, 100)}»`);
    }
  }
  expect([...found], `${what}: English or keys on the Korean page`).toEqual([]);
  // A particle is chosen by its word ("24,000원을", "김민수(매표원)로"), never written both ways.
  const pairs = text.match(/.{0,20}(을\(를\)|를\(을\)|이\(가\)|가\(이\)|은\(는\)|는\(은\)|과\(와\)|와\(과\)|\(으\)로)/g) ?? [];
  expect(pairs, `${what}: particles written both ways`).toEqual([]);
  return text;
}

/** A browser that asks for Korean. */
async function korean(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ locale: "ko-KR", extraHTTPHeaders: { "Accept-Language": "ko-KR,ko;q=0.9" }, viewport, hasTouch: true });
  return context.newPage();
}

/** The names given to things on this server: films, halls, staff, registers. */
async function dataNames(page: Page, more: string[] = []): Promise<string[]> {
  const list: { movieTitle: string; hallName: string }[] = await (await page.request.get(`${shop}/showtimes`)).json();
  // The brand and the venue's name on printed tickets are names too.
  return [...new Set([...list.flatMap((s) => [s.movieTitle, s.hallName]), "Seats Cinema", "Seats", ...more])];
}

async function staff(page: Page, name: string, role: string, pin: string) {
  execFileSync(serverBin, ["staff", "add", name, "--role", role], {
    input: `${PASSWORD}\n`,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", RUST_LOG: "error" },
  });
  const signIn = await page.request.post(`${shop}/api/staff_sign_in`, { data: { name, password: PASSWORD } });
  expect(signIn.status()).toBe(200);
  expect((await page.request.post(`${shop}/api/staff_set_pin`, { data: { password: PASSWORD, pin } })).status()).toBe(200);
}

async function hydrated(page: Page) {
  await expect(page.locator('[data-test="hydrated"][data-done="false"]')).toHaveCount(0, { timeout: 15_000 });
}

test.setTimeout(120_000);

test("a customer's pages are Korean throughout: showtimes, the seat map, a hold, the booking", async ({ browser }) => {
  const page = await korean(browser, { width: 390, height: 844 });
  // The address given at checkout, masked on the booking page, is the customer's, not a text.
  const data = await dataNames(page, ["k***@example.com"]);
  await page.goto(`${shop}/`);
  await hydrated(page);
  await allKorean(page, "showtimes", data);
  const list = await onSale(page, shop);
  const id = list[3].id;
  const map = new SeatMapPage(page);
  await page.goto(`${shop}/showtimes/${id}`);
  await map.waitForHydration();
  await allKorean(page, "seat map", data);
  await map.select("E3", "E4");
  await allKorean(page, "seat map, two seats chosen", data);
  await map.holdButton.click();
  await expect(map.holdPanel).toBeVisible();
  await allKorean(page, "seat map, seats held", data);
  await map.pay();
  await expect(page).toHaveURL(/\/pay\/ps_/);
  // The gateway's page is the payment company's, not this product's.
  await page.locator('[data-test="sandbox-pay"]').click();
  await expect(page.locator('[data-test="booking-status"]')).toHaveAttribute("data-status", "CONFIRMED", { timeout: 15_000 });
  await hydrated(page);
  await allKorean(page, "booking", data);
  await page.goto(`${shop}/my-bookings`);
  await hydrated(page);
  await allKorean(page, "my bookings", data);
  await page.goto(`${shop}/find-booking`);
  await hydrated(page);
  await expect(page.locator('[data-test="find-booking-page"]')).toHaveAttribute("data-hydrated", "true");
  await allKorean(page, "find a booking", data);
  await page.locator('[data-test="find-reference"]').fill("00000000");
  await page.locator('[data-test="find-email"]').fill("nobody@example.com");
  await page.locator('[data-test="find-button"]').click();
  await expect(page.locator('[data-test="find-error"]')).toBeVisible();
  await allKorean(page, "find a booking, not found", [...data, "00000000", "nobody@example.com"]);
  await page.goto(`${shop}/no-such-page`);
  await allKorean(page, "not found", data);
});

test("the console is Korean throughout: sign-in, home, halls with the editor's problems, sales, audit, tokens", async ({ browser }) => {
  const page = await korean(browser);
  const data = await dataNames(page, ["operator"]);
  await page.goto(`${shop}/staff/sign-in?next=/admin`);
  await hydrated(page);
  await allKorean(page, "sign-in", data);
  await page.locator('[data-test="staff-name"]').fill("operator");
  await page.locator('[data-test="staff-password"]').fill("not the password");
  await page.locator('[data-test="sign-in-button"]').click();
  await expect(page.locator('[data-test="sign-in-error"]')).toBeVisible();
  await allKorean(page, "sign-in refused", data);
  await page.locator('[data-test="staff-password"]').fill(OPERATOR_PASSWORD);
  await page.locator('[data-test="sign-in-button"]').click();
  await expect(page).toHaveURL(`${shop}/admin`);
  await hydrated(page);
  await allKorean(page, "console home", data);

  await page.goto(`${shop}/admin/halls`);
  await hydrated(page);
  await allKorean(page, "halls", data);
  // The editor's problems, each a line in Korean naming its seats.
  const editor = page.locator('[data-test="layout-editor"]');
  const rows = editor.locator('[data-test="editor-row"]');
  await rows.nth(0).locator('[data-test="row-category"]').fill("STANDRAD");
  await rows.nth(0).locator('[data-test="row-wheelchair"]').fill("12");
  await rows.nth(1).locator('[data-test="row-aisles"]').fill("4, x");
  await editor.locator('[data-test="editor-name"]').click();
  const problems = editor.locator('[data-test="editor-problems"] li');
  await expect(problems).toHaveCount(3);
  await expect(problems.filter({ hasText: "STANDRAD" })).toContainText("A1–A8");
  await allKorean(page, "editor problems", data);
  await editor.screenshot({ path: path.join(root, "docs", "screenshots", "admin-editor-problems.png") });
  // Seats taken off sale, and the notice that says so.
  const showtime = (await onSale(page, shop))[5].id;
  await page.locator('[data-test="block-showtime"]').selectOption(String(showtime));
  await page.locator('[data-test="block-seats"]').fill("A1");
  await page.locator('[data-test="block-button"]').click();
  await expect(page.locator('[data-test="halls-notice"]')).toBeVisible();
  await allKorean(page, "seats taken off sale", data);
  await page.locator('[data-test="block-kind"]').selectOption("onSale");
  await page.locator('[data-test="block-button"]').click();

  for (const at of ["/admin/sales", "/admin/audit", "/admin/tokens"]) {
    await page.goto(`${shop}${at}`);
    await hydrated(page);
    await allKorean(page, at, data);
  }
});

test("the kiosk and the door are Korean throughout: a shift, a sale, the receipt and tickets, a refund, a reprint, the lock, closing", async ({ browser }) => {
  const clerk = `kim${stamp}`;
  const boss = `park${stamp}`;
  const register = `창구${stamp}`;
  const page = await korean(browser, { width: 1920, height: 1080 });
  await page.addInitScript(() => {
    window.print = () => {};
  });
  const supervisor = await korean(browser);
  await staff(supervisor, boss, "supervisor", "8642");
  await staff(page, clerk, "clerk", "2468");
  const data = await dataNames(page, [clerk, boss, register]);
  await page.goto(`${shop}/box-office?idle=600`);
  await expect(page.locator('[data-test="kiosk"]')).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
  await allKorean(page, "kiosk, opening a shift", data);
  await page.locator('[data-test="register"]').fill(register);
  await page.locator('[data-test="float"]').fill("50000");
  await page.locator('[data-test="open-shift-button"]').tap();
  await expect(page.locator('[data-test="shift-register"]')).toContainText(register);
  await allKorean(page, "kiosk, showtimes", data);
  const id = (await onSale(page, shop))[4].id;
  await page.locator(`[data-test="kiosk-showtime"][data-id="${id}"]`).tap();
  await expect(page.locator('[data-test="kiosk-sale"]')).toHaveAttribute("data-online", "true", { timeout: 15_000 });
  await page.locator('[data-test="best-2"]').tap();
  await expect(page.locator('[data-test="tender"]')).toBeVisible();
  await allKorean(page, "kiosk, tender", data);
  // On a 1366×768 kiosk the Korean labels fit their buttons and "결제 확정" is on the screen.
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.locator('[data-test="tender-cash"]').tap();
  await expect(page.locator('[data-test="sell"]')).toBeInViewport({ ratio: 1 });
  expect(await cutLabels(page)).toEqual([]);
  await page.screenshot({ path: path.join(root, "docs", "screenshots", "kiosk-1366-korean.png") });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.locator('[data-test="tender-comp"]').tap();
  await expect(page.locator(`[data-test="comp-approver"][data-name="${boss}"]`)).toBeVisible();
  await allKorean(page, "kiosk, complimentary", data);
  await page.locator('[data-test="tender-cash"]').tap();
  await page.locator('[data-test="cash-50000"]').tap();
  await page.locator('[data-test="sell"]').tap();
  await expect(page.locator('[data-test="receipt"]')).toBeVisible();
  await allKorean(page, "kiosk, receipt", data);
  const booking = (await page.locator('[data-test="receipt-booking"]').textContent())!.trim();
  await page.locator('[data-test="print"]').tap();
  await expect(page.locator('[data-test="printed-ticket"]')).toHaveCount(2);
  await allKorean(page, "kiosk, printed tickets", data);

  await page.locator('[data-test="tab-refund"]').tap();
  await page.locator('[data-test="refund-reference"]').fill(booking);
  await page.locator('[data-test="refund-button"]').tap();
  await expect(page.locator('[data-test="kiosk-error"]')).toBeVisible();
  await allKorean(page, "kiosk, refund refused", data);
  await page.locator(`[data-test="refund-approver"][data-name="${boss}"]`).tap();
  await page.locator('[data-test="refund-pin"]').fill("8642");
  await page.locator('[data-test="reprint-button"]').tap();
  await expect(page.locator('[data-test="reprint"]').first()).toBeVisible();
  await allKorean(page, "kiosk, reprint", data);
  await page.locator('[data-test="refund-pin"]').fill("8642");
  await page.locator('[data-test="refund-button"]').tap();
  await expect(page.locator('[data-test="refund-done"]')).toBeVisible();
  await allKorean(page, "kiosk, refunded", data);

  // The console's booking search: the refunded sale by its number, its events, in Korean.
  await supervisor.goto(`${shop}/admin/bookings?q=${booking}`);
  await hydrated(supervisor);
  const found = supervisor.locator('[data-test="booking-found"]');
  await expect(found).toHaveAttribute("data-state", "REFUNDED");
  await expect(found.locator('[data-test="booking-event"][data-type="BookingConfirmed"]')).toHaveCount(1);
  await expect(found.locator('[data-test="booking-event"][data-type="RefundIssued"]')).toHaveCount(1);
  await allKorean(supervisor, "booking search", data);
  await supervisor.screenshot({ path: path.join(root, "docs", "screenshots", "admin-booking-search.png"), fullPage: true });
  // A seat of it, once sold, finds it too; a number that names nothing says so.
  await supervisor.locator('[data-test="booking-query"]').fill("00000000");
  await supervisor.locator('[data-test="booking-find"]').click();
  await expect(supervisor.locator('[data-test="booking-search-error"]')).toBeVisible();
  await allKorean(supervisor, "booking search, nothing found", data);
  // Search after search, found and not, each answered before the next: no page error, no panic
  // (the guard of every test, tests/guarded.ts, fails the test on either).
  for (let round = 0; round < 6; round++) {
    const query = round % 2 === 0 ? booking : `0000000${round}`;
    await supervisor.locator('[data-test="booking-query"]').fill(query);
    await supervisor.locator('[data-test="booking-find"]').click();
    const answer = round % 2 === 0 ? found : supervisor.locator('[data-test="booking-search-error"]');
    await expect(supervisor).toHaveURL(new RegExp(`q=${query}`));
    await expect(answer).toBeVisible();
  }

  await page.locator('[data-test="lock"]').tap();
  await expect(page.locator('[data-test="lock-screen"]')).toBeVisible();
  await page.locator('[data-test="unlock-pin"]').fill("0000");
  await page.locator('[data-test="unlock"]').tap();
  await expect(page.locator('[data-test="kiosk-error"]')).toBeVisible();
  await allKorean(page, "kiosk, locked", data);
  await page.locator('[data-test="unlock-pin"]').fill("2468");
  await page.locator('[data-test="unlock"]').tap();
  await expect(page.locator('[data-test="lock-screen"]')).toBeHidden();

  await page.locator('[data-test="tab-close"]').tap();
  await page.locator('[data-test="counted"]').fill("50000");
  await page.locator('[data-test="close-shift-button"]').tap();
  await expect(page.locator('[data-test="shift-figures"]')).toHaveAttribute("data-closed", "true");
  await allKorean(page, "kiosk, shift closed", data);

  await page.goto(`${shop}/door`);
  await expect(page.locator('[data-test="door"]')).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
  await allKorean(page, "door", data);
});
