import { expect, type Locator, type Page } from "@playwright/test";

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
}

/** One showtime's seat map at `/showtimes/:id`. */
export class SeatMapPage {
  readonly root: Locator;
  readonly selection: Locator;
  constructor(readonly page: Page) {
    this.root = page.locator('[data-test="seat-map-page"]');
    this.selection = page.locator('[data-test="selection"]');
  }
  seat(code: string): Locator {
    return this.page.locator(`[data-test="seat-${code}"]`);
  }
  /** Waits until the WebAssembly client has taken over the server-rendered page. */
  async waitForHydration() {
    await expect(this.root).toHaveAttribute("data-hydrated", "true", { timeout: 15_000 });
  }
}
