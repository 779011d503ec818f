// The bundle benchmark's browser part (scripts/bench-bundle.sh, not the end-to-end suite): how
// long after navigation the seat map is interactive — its page hydrated by the customer's
// bundle — on an emulated mid-range phone (4× CPU slowdown, 10 Mbit/s, 40 ms round trip, an
// empty cache) and unthrottled; and, as the baseline in the same run, how long the same page's
// HTML and stylesheet alone take to load under the same conditions (JavaScript off); then, on
// the phone, how long after the server's answer "best 2" shows its hold panel, and how long after
// a tap a seat shows as selected. Writes the
// figures to $BENCH_OUT as JSON; the script reports them.
import { expect, test, type Browser } from "@playwright/test";
import * as fs from "fs";

const base = process.env.BENCH_BASE!;
const runs = Number(process.env.BENCH_RUNS ?? 5);

type Conditions = { name: string; phone: boolean };
const conditions: Conditions[] = [
  { name: "phone", phone: true },
  { name: "unthrottled", phone: false },
];

/** What a first visit brought over the network: bytes as sent (compressed), by kind. */
type Wire = { total: number; byKind: Record<string, number> };

/** Milliseconds from navigation start to interactive (or, without JavaScript, to the load
 * event), for one fresh visit; with JavaScript, also the bytes on the wire until the live map's
 * first frame. */
async function visit(browser: Browser, path: string, c: Conditions, javaScript: boolean): Promise<{ ms: number; wire?: Wire }> {
  const context = await browser.newContext({
    javaScriptEnabled: javaScript,
    ...(c.phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : {}),
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  // Each response's bytes as they crossed the network (headers and compressed body), by kind;
  // and the live map's first frame (its snapshot), which the page waits for to be live.
  const kinds = new Map<string, string>();
  const byKind: Record<string, number> = {};
  let firstFrame: number | undefined;
  cdp.on("Network.responseReceived", (e: any) => kinds.set(e.requestId, kindOf(e.response.url, e.type)));
  cdp.on("Network.loadingFinished", (e: any) => {
    const kind = kinds.get(e.requestId) ?? "other";
    byKind[kind] = (byKind[kind] ?? 0) + e.encodedDataLength;
  });
  cdp.on("Network.webSocketFrameReceived", (e: any) => {
    if (firstFrame === undefined) firstFrame = Buffer.byteLength(e.response.payloadData, e.response.opcode === 1 ? "utf8" : "base64");
  });
  if (c.phone) {
    const bytesPerSecond = (10 * 1000 * 1000) / 8;
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 40,
      downloadThroughput: bytesPerSecond,
      uploadThroughput: bytesPerSecond,
    });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  }
  let ms: number;
  if (javaScript) {
    // The moment the page marks itself hydrated, seen by an observer set before any script.
    await page.addInitScript(() => {
      const seen = () => {
        const root = document.querySelector('[data-test="seat-map-page"]');
        if (root?.getAttribute("data-hydrated") === "true") {
          (window as any).__interactiveAt = performance.now();
          return true;
        }
        return false;
      };
      new MutationObserver((_, observer) => {
        if (seen()) observer.disconnect();
      }).observe(document, { subtree: true, attributes: true, childList: true, attributeFilter: ["data-hydrated"] });
    });
    await page.goto(base + path);
    await page.waitForFunction(() => (window as any).__interactiveAt !== undefined, null, { timeout: 30_000 });
    ms = await page.evaluate(() => (window as any).__interactiveAt as number);
    await expect.poll(() => firstFrame, { timeout: 30_000 }).toBeDefined();
    byKind["live map's first frame"] = firstFrame!;
  } else {
    await page.goto(base + path, { waitUntil: "load" });
    ms = await page.evaluate(() => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd);
  }
  await context.close();
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  return { ms, wire: javaScript ? { total, byKind } : undefined };
}

/** The kind of a response, for the first visit's bytes. */
function kindOf(url: string, type: string): string {
  const path = new URL(url).pathname;
  if (type === "Document") return "HTML";
  if (path.endsWith(".wasm")) return "WebAssembly";
  if (path.endsWith(".js")) return "JavaScript";
  if (path.endsWith(".css")) return "CSS";
  return type;
}

/**
 * On the emulated phone, after the page hydrated: "best 2" pressed, and the milliseconds from
 * the server's answer (the `hold_best` fetch resolving) to the hold panel in the page, seen by
 * an observer. The hold is left to lapse: seats let go are not offered to the same address again
 * at once, and each visit's best 2 are the next best.
 */
async function bestPanel(browser: Browser, path: string): Promise<{ answer: number; panel: number }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as any;
    const fetched = window.fetch.bind(window);
    window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const asked = performance.now();
      const answer = await fetched(input, init);
      if (String(input instanceof Request ? input.url : input).includes("hold_best")) {
        w.__asked = asked;
        w.__answeredAt = performance.now();
      }
      return answer;
    };
    new MutationObserver(() => {
      if (w.__answeredAt !== undefined && w.__panelAt === undefined && document.querySelector('[data-test="hold-panel"]')) {
        w.__panelAt = performance.now();
      }
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(base + path);
  await page.waitForSelector('[data-test="seat-map-page"][data-hydrated="true"]');
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  await page.locator('[data-test="best-button"]').tap();
  await page.waitForFunction(() => (window as any).__panelAt !== undefined, null, { timeout: 30_000 });
  const [asked, answered, shown] = await page.evaluate(() => [(window as any).__asked, (window as any).__answeredAt, (window as any).__panelAt]);
  await context.close();
  return { answer: answered - asked, panel: shown - answered };
}

/**
 * On the emulated phone (4× CPU), after the page hydrated: a free seat tapped, and the
 * milliseconds from the tap (the click, seen before the page's own listener) to the seat
 * showing as selected (its `data-view`, seen by an observer).
 */
async function tapSelected(browser: Browser, path: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
  const page = await context.newPage();
  await page.goto(base + path);
  await page.waitForSelector('[data-test="seat-map-page"][data-hydrated="true"]');
  await page.evaluate(() => {
    const w = window as any;
    document.addEventListener("click", () => (w.__tapAt = performance.now()), { capture: true });
    new MutationObserver((changes) => {
      if (w.__tapAt !== undefined && w.__selectedAt === undefined && changes.some((c) => (c.target as Element).getAttribute("data-view") === "selected")) {
        w.__selectedAt = performance.now();
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-view"] });
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  await page.locator('[data-test="seat-grid"] [data-view="free"]').nth(40).tap();
  await page.waitForFunction(() => (window as any).__selectedAt !== undefined, null, { timeout: 30_000 });
  const ms = await page.evaluate(() => (window as any).__selectedAt - (window as any).__tapAt);
  await context.close();
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test("the seat map's time to interactive, phone and unthrottled, against its HTML alone", async ({ browser, request }) => {
  test.setTimeout(300_000);
  const list = await (await request.get(`${base}/showtimes`)).json();
  const showtime = list.find((s: any) => s.seatsTotal === 300 && s.salesOpen && !s.waitingRoom) ?? list[0];
  const path = `/showtimes/${showtime.id}`;
  const out: Record<string, unknown> = { path };
  for (const c of conditions) {
    const interactive: number[] = [];
    const html: number[] = [];
    let wire: Wire | undefined;
    for (let i = 0; i < runs; i++) {
      const visited = await visit(browser, path, c, true);
      interactive.push(visited.ms);
      wire = visited.wire;
      html.push((await visit(browser, path, c, false)).ms);
    }
    out[c.name] = { interactive, html, interactiveMedian: median(interactive), htmlMedian: median(html), wire };
  }
  // The hold panel of "best 2" on the phone, against the server's answer in the same visits.
  const answers: number[] = [];
  const panels: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { answer, panel } = await bestPanel(browser, path);
    answers.push(answer);
    panels.push(panel);
  }
  out.best = { answer: answers, panel: panels, answerMedian: median(answers), panelMedian: median(panels) };
  // A tap on a free seat until it shows as selected, on the phone.
  const taps: number[] = [];
  for (let i = 0; i < runs; i++) taps.push(await tapSelected(browser, path));
  out.tap = { selected: taps, selectedMedian: median(taps) };
  fs.writeFileSync(process.env.BENCH_OUT!, JSON.stringify(out, null, 2));
});
