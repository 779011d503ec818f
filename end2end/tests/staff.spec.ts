import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import * as fs from "fs";
import * as path from "path";
import { SignInPage } from "./pages";

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
  await axeClean(page, "console home");
  await page.locator('[data-test="sign-out"]').click();
  await expect(page).toHaveURL(/\/staff\/sign-in$/);
  await page.goto("/admin");
  await expect(page.locator('[data-test="staff-refusal"]')).toBeVisible();
  expect((await page.request.post("/api/staff_me", { data: {} })).status()).toBe(401);
});
