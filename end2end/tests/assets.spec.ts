import { type APIRequestContext } from "@playwright/test";
import { expect, test } from "./guarded";
import { createHash } from "crypto";
import { showtimeIds } from "./pages";

/** Every file of the site that a page links (the bundle, its JavaScript, the stylesheet). */
async function linkedAssets(request: APIRequestContext, path: string): Promise<string[]> {
  const page = await request.get(path, { headers: { "accept-encoding": "br" } });
  expect(page.status()).toBe(200);
  expect(page.headers()["cache-control"]).toBe("no-cache");
  // The page itself comes compressed as asked (a seat map's ~175 kB of HTML is a few in brotli).
  expect(page.headers()["content-encoding"], path).toBe("br");
  expect(page.headers()["vary"]?.toLowerCase(), path).toContain("accept-encoding");
  const html = await page.text();
  const links = [...html.matchAll(/"(\/pkg\/[^"]+)"/g)].map((m) => m[1]);
  return [...new Set(links)];
}

test("the page and every asset it links come compressed as asked, hashed files cached for a year", async ({ page, request }) => {
  const [showtime] = await showtimeIds(page);
  for (const path of ["/", `/showtimes/${showtime}`]) {
    const assets = await linkedAssets(request, path);
    // The bundle, its JavaScript and the stylesheet, each by a name made from its content.
    for (const ext of ["wasm", "js", "css"]) {
      expect(assets.some((a) => new RegExp(`^/pkg/seats\\.[0-9a-f]{16}\\.${ext}$`).test(a)), `${path} links a hashed .${ext}: ${assets}`).toBe(true);
    }
    for (const asset of assets) {
      const answer = await request.get(asset, { headers: { "accept-encoding": "br" } });
      expect(answer.status(), asset).toBe(200);
      const headers = answer.headers();
      expect(headers["content-encoding"], asset).toBe("br");
      expect(headers["vary"]?.toLowerCase(), asset).toContain("accept-encoding");
      expect(headers["cache-control"], asset).toBe("public, max-age=31536000, immutable");
      // The name is the content's: another build's content gets another name.
      const hash = asset.match(/\.([0-9a-f]{16})\.[a-z]+$/)![1];
      const body = await answer.body(); // decoded by the client
      expect(createHash("sha256").update(body).digest("hex").slice(0, 16), asset).toBe(hash);
      // Asked for gzip only, or for nothing, the same file in that form.
      const gzip = await request.get(asset, { headers: { "accept-encoding": "gzip" } });
      expect(gzip.headers()["content-encoding"], asset).toBe("gzip");
      const plain = await request.get(asset, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers()["content-encoding"], asset).toBeUndefined();
      expect((await plain.body()).equals(body), asset).toBe(true);
    }
  }
  // A name that is no build's is a 404, never a page or an old file.
  const missing = await request.get("/pkg/seats.0000000000000000.wasm");
  expect(missing.status()).toBe(404);
  // The seat map's JSON (tens of kilobytes) is compressed too; a small answer is not.
  const seats = await request.get(`/showtimes/${showtime}/seats`, { headers: { "accept-encoding": "br" } });
  expect(seats.headers()["content-encoding"]).toBe("br");
  expect((await seats.json()).seats.length).toBeGreaterThan(0);
  const health = await request.get("/health", { headers: { "accept-encoding": "br" } });
  expect(health.headers()["content-encoding"]).toBeUndefined();
});

/** The site files a page asked for while it loaded and hydrated. */
async function requestedBundles(page: import("@playwright/test").Page, path: string): Promise<string[]> {
  const asked: string[] = [];
  page.on("request", (r) => {
    const p = new URL(r.url()).pathname;
    if (p.startsWith("/pkg/")) asked.push(p);
  });
  await page.goto(path);
  await expect(page.locator('header [data-test="hydrated"]')).toHaveAttribute("data-done", "true", { timeout: 15_000 });
  return asked;
}

test("a customer's page loads the customer's bundle only, a staff page the staff's, and a link between them loads the other", async ({ page }) => {
  const customerWasm = /^\/pkg\/seats\.[0-9a-f]{16}\.wasm$/;
  const bookingsWasm = /^\/pkg\/seats-bookings\.[0-9a-f]{16}\.wasm$/;
  const staffWasm = /^\/pkg\/seats-staff\.[0-9a-f]{16}\.wasm$/;
  const [showtime] = await showtimeIds(page);
  // A sale's pages: the customer's bundle, nothing of the bookings' or the staff's.
  for (const path of ["/", `/showtimes/${showtime}`]) {
    const asked = await requestedBundles(page, path);
    expect(asked.some((a) => customerWasm.test(a)), `${path}: ${asked}`).toBe(true);
    expect(asked.filter((a) => a.includes("seats-")), `${path} loads no other bundle`).toEqual([]);
  }
  for (const path of ["/my-bookings", "/find-booking"]) {
    const asked = await requestedBundles(page, path);
    expect(asked.some((a) => bookingsWasm.test(a)), `${path}: ${asked}`).toBe(true);
    expect(asked.some((a) => customerWasm.test(a) || staffWasm.test(a)), `${path} loads no other bundle: ${asked}`).toBe(false);
  }
  // From the seat map, the header's link to the customer's bookings loads that page afresh,
  // with the bookings' bundle.
  const fromMap = await requestedBundles(page, `/showtimes/${showtime}`);
  fromMap.length = 0;
  await page.locator('header a[href="/my-bookings"]').first().click();
  await expect(page).toHaveURL(/\/my-bookings$/);
  await expect(page.locator('header [data-test="hydrated"]')).toHaveAttribute("data-done", "true", { timeout: 15_000 });
  await expect.poll(() => fromMap.some((a) => bookingsWasm.test(a))).toBe(true);
  for (const path of ["/staff/sign-in", "/admin", "/door"]) {
    const asked = await requestedBundles(page, path);
    expect(asked.some((a) => staffWasm.test(a)), `${path}: ${asked}`).toBe(true);
    expect(asked.some((a) => customerWasm.test(a)), `${path} loads nothing of the customer's`).toBe(false);
  }
  // From a staff page (hydrated by the staff's bundle) a link to a customer's page: the router
  // of the staff's bundle has no such page, so the page is loaded afresh with its own bundle.
  const asked = await requestedBundles(page, "/staff/sign-in");
  asked.length = 0;
  await page.locator('header a[href="/"]').first().click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator('[data-test="showtime-list"]')).toBeVisible();
  await expect(page.locator('header [data-test="hydrated"]')).toHaveAttribute("data-done", "true", { timeout: 15_000 });
  await expect.poll(() => asked.some((a) => customerWasm.test(a))).toBe(true);
  // A page that is in neither bundle is "not found" in both, hydrated without a loop.
  for (const path of ["/no-such-page", "/admin/no-such-page"]) {
    const answer = await page.goto(path);
    expect(answer!.status(), path).toBe(404);
    await expect(page.locator('header [data-test="hydrated"]')).toHaveAttribute("data-done", "true", { timeout: 15_000 });
    await expect(page).toHaveURL(new RegExp(`${path}$`));
  }
});
