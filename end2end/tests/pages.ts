import { expect, type Browser, type Locator, type Page } from "@playwright/test";

/** The showtime list at `/`. */
export class ShowtimesPage {
  readonly list: Locator;
  constructor(readonly page: Page) {
    this.list = page.locator('[data-test="showtime-list"]');
  }
  async open() {
    await this.page.goto("/");
    await expect(this.list).toBeVisible();
  }
  showtimes(): Locator {
    return this.list.locator('[data-test="showtime"]');
  }

  /** The showtimes still on sale (those that have started are listed as closed). */
  onSale(): Locator {
    return this.list.locator('[data-test="showtime"][data-open="true"]');
  }
}

/** One showtime's seat map at `/showtimes/:id`. */
export class SeatMapPage {
  readonly root: Locator;
  readonly selection: Locator;
  readonly total: Locator;
  readonly notice: Locator;
  readonly holdButton: Locator;
  readonly holdPanel: Locator;
  readonly heldSeats: Locator;
  readonly countdown: Locator;
  readonly cancelButton: Locator;
  readonly langSwitch: Locator;
  constructor(readonly page: Page) {
    this.root = page.locator('[data-test="seat-map-page"]');
    this.selection = page.locator('[data-test="selection"]');
    this.total = page.locator('[data-test="total"]');
    this.notice = page.locator('[data-test="notice"]');
    this.holdButton = page.locator('[data-test="hold-button"]');
    this.holdPanel = page.locator('[data-test="hold-panel"]');
    this.heldSeats = page.locator('[data-test="held-seats"]');
    this.countdown = page.locator('[data-test="countdown"]');
    this.cancelButton = page.locator('[data-test="cancel-hold"]');
    this.langSwitch = page.locator('[data-test="lang-switch"]');
  }
  seat(code: string): Locator {
    return this.page.locator(`[data-test="seat-${code}"]`);
  }
  async open(showtimeId: number) {
    await this.page.goto(`/showtimes/${showtimeId}`);
    await this.waitForHydration();
  }
  /** Waits until the WebAssembly client has taken over the server-rendered page. */
  async waitForHydration() {
    await expect(this.root).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
  }
  async select(...codes: string[]) {
    for (const code of codes) {
      await this.seat(code).click();
    }
  }
  async hold(...codes: string[]) {
    await this.select(...codes);
    await this.holdButton.click();
    // The server's answer, however long a loaded machine takes to give and show it.
    await expect(this.holdPanel).toBeVisible({ timeout: 15_000 });
  }
  /** Gives the address the ticket goes to and goes on to the payment. */
  async pay(email = "kim@example.com") {
    await this.page.locator('[data-test="checkout-email"]').fill(email);
    await this.page.locator('[data-test="pay"]').click();
  }
}

/** A showtime as `GET /showtimes` lists it. */
export interface Showtime {
  id: number;
  seatsTotal: number;
  salesOpen: boolean;
  startsAt: string;
}

/**
 * The showtimes on sale at `base` (the page's own server by default), in time order, that start
 * more than an hour from now: sales close at the start, so one about to start would cut the
 * tests' holds and payments short.
 */
export async function onSale(page: Page, base = ""): Promise<Showtime[]> {
  const response = await page.request.get(`${base}/showtimes`);
  const list: Showtime[] = await response.json();
  const later = Date.now() + 60 * 60 * 1000;
  return list.filter((s) => s.salesOpen && Date.parse(s.startsAt) > later);
}

/** Ids of the showtimes on sale, in time order. */
export async function showtimeIds(page: Page): Promise<number[]> {
  return (await onSale(page)).map((s) => s.id);
}

/** A seat's stored status as the REST API reports it. */
export async function apiStatus(page: Page, showtimeId: number, code: string, base = ""): Promise<string> {
  const response = await page.request.get(`${base}/showtimes/${showtimeId}/seats`);
  const map = await response.json();
  return map.seats.find((s: { code: string }) => s.code === code).status;
}

/** A second customer: a fresh browser context has its own session cookie. */
export async function otherCustomer(browser: Browser): Promise<SeatMapPage> {
  const context = await browser.newContext();
  return new SeatMapPage(await context.newPage());
}

/** The staff sign-in page at `/staff/sign-in`. */
export class SignInPage {
  readonly name: Locator;
  readonly password: Locator;
  readonly button: Locator;
  readonly error: Locator;
  constructor(readonly page: Page) {
    this.name = page.locator('[data-test="staff-name"]');
    this.password = page.locator('[data-test="staff-password"]');
    this.button = page.locator('[data-test="sign-in-button"]');
    this.error = page.locator('[data-test="sign-in-error"]');
  }
  /** Fills the form once the page is interactive (the button waits for it) and submits. */
  async signIn(name: string, password: string) {
    await expect(this.button).toBeEnabled({ timeout: 15_000 });
    await this.name.fill(name);
    await this.password.fill(password);
    await this.button.click();
  }
}

/** A message the tests' SMTP server received: its headers and its text part, decoded. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The folder the tests' SMTP server (aiosmtpd, playwright.config.ts) keeps messages in. */
/** Where the specs keep their screenshots for the docs (E2E_SCREENSHOTS: elsewhere, as the run
 * against the reference deployment does, so that the docs keep the test servers' pictures). */
export const screenshotDir = process.env.E2E_SCREENSHOTS ?? `${__dirname}/../../docs/screenshots`;

export const mailDir = `${process.env.E2E_DATA_DIR ?? `${__dirname}/../../target/e2e-data`}/smtp`;

/** Every message the tests' SMTP server received so far. */
export function receivedMail(): Mail[] {
  const fs = require("fs") as typeof import("fs");
  const dir = `${mailDir}/new`;
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).sort().map((f) => parseMail(fs.readFileSync(`${dir}/${f}`, "latin1")));
}

/** Decodes an RFC 2047 header (`=?utf-8?b?…?=` words) as lettre writes them. */
function header(raw: string, name: string): string {
  const m = raw.match(new RegExp(`^${name}: ((?:.*)(?:\\r?\\n[ \\t].*)*)`, "mi"));
  if (!m) return "";
  return m[1]
    .replace(/\r?\n[ \t]/g, " ")
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, enc: string, text: string) =>
      enc.toLowerCase() === "b"
        ? Buffer.from(text, "base64").toString("utf8")
        : Buffer.from(text.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_m, h) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8"),
    )
    .trim();
}

function parseMail(raw: string): Mail {
  const [head] = raw.split(/\r?\n\r?\n/);
  // The text/plain part: its headers, a blank line, its body up to the next boundary.
  const part = raw.match(/Content-Type: text\/plain[^]*?\r?\n\r?\n([^]*?)\r?\n--/i);
  const encoding = raw.match(/Content-Type: text\/plain[^]*?Content-Transfer-Encoding: ([\w-]+)/i)?.[1]?.toLowerCase() ?? "7bit";
  const body = part ? part[1] : "";
  let text: string;
  if (encoding === "base64") text = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  else if (encoding === "quoted-printable")
    text = Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, h) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8");
  else text = Buffer.from(body, "latin1").toString("utf8");
  return { to: header(head, "To"), subject: header(head, "Subject"), text };
}

/**
 * A 300-seat hall drawn whole across `map`: every seat and row letter inside the map's own box
 * (not under a side panel, not clipped by the stage), and nothing in it scrolls sideways.
 */
export async function wholeRowsInView(page: Page, map: string) {
  const width = page.viewportSize()!.width;
  const out = await page.locator(map).evaluate((m, width) => {
    const box = m.getBoundingClientRect();
    const cut = Array.from(m.querySelectorAll(".seat, .row-label"))
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ r }) => r.left < Math.max(0, box.left) - 1 || r.right > Math.min(width, box.right) + 1)
      .map(({ e, r }) => `${e.textContent} ${r.left}–${r.right}`);
    const scrolls = [m, ...Array.from(m.querySelectorAll(".stage"))].some((e) => e.scrollWidth > e.clientWidth + 1);
    return { cut, seats: m.querySelectorAll(".seat").length, scrolls };
  }, width);
  expect(out.seats).toBeGreaterThanOrEqual(300);
  expect(out.cut).toEqual([]);
  expect(out.scrolls).toBe(false);
}

/** The kiosk side panel's buttons whose label does not fit them (cut off or spilling out). */
export async function cutLabels(page: Page): Promise<string[]> {
  return page.locator(".kiosk-side").evaluate((side) =>
    Array.from(side.querySelectorAll("button"))
      .filter((b) => b.getBoundingClientRect().width > 0 && b.scrollWidth > b.clientWidth + 1)
      .map((b) => `${b.textContent?.trim()} ${b.scrollWidth}>${b.clientWidth}`),
  );
}
