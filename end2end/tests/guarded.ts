import { test as base, expect, type BrowserContext, type Page } from "@playwright/test";

/**
 * `test` with every browser page watched: an uncaught error in a page, or a panic of the
 * WebAssembly (the `panicked at` line it logs), fails the test that caused it, in the test's own
 * context and in every context or page the test opens. A hydration error is reported with the
 * node where the browser's page and the server's differed.
 */
export const test = base.extend<{ browserErrors: void }>({
  browserErrors: [
    async ({ browser, context }, use) => {
      const errors: string[] = [];
      const found: Promise<unknown>[] = [];
      const watchPage = (page: Page) => {
        page.on("pageerror", (e) => errors.push(`${page.url()}: uncaught ${e.message}`));
        page.on("console", (m) => {
          if (m.type() === "error" && m.text().includes("panicked at")) {
            errors.push(`${page.url()}: ${m.text()}`);
          }
          // A hydration error names the node it found: kept to say where the page differed.
          if (m.type() === "error" && m.text().includes("hydration error")) {
            const url = page.url();
            found.push(
              Promise.all(m.args().map((a) => a.evaluate((v) => (v instanceof Node ? (v as Element).outerHTML ?? `${v.nodeName} ${v.textContent}` : String(v))).catch(() => "?")))
                .then((parts) => errors.push(`${url}: ${parts.join(" ")}`)),
            );
          }
        });
      };
      const watch = (c: BrowserContext) => {
        c.pages().forEach(watchPage);
        c.on("page", watchPage);
      };
      watch(context);
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const opened = await newContext(options);
        watch(opened);
        return opened;
      };
      try {
        await use();
      } finally {
        browser.newContext = newContext;
      }
      await Promise.all(found);
      expect(errors, "uncaught errors and panics in the browser").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
