/// <reference lib="dom" />
/**
 * The API reference as a merchant reads it, in Chromium: /docs renders the signing formulas with
 * their `<placeholders>` (once eaten as HTML tags), links the signing guide, and switches between
 * the full document and the merchant's; the API serves the merchant document and the guide the
 * documents link to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import '../../api/app';
import { merchantOpenApiDocument, openApiDocument } from '../../api/openapi';
import { ROOT } from '../../scripts/stack';
import { API_URL } from '../helpers/api';
import { fileBrowser } from '../helpers/console-browser';

const WAIT_MS = 120_000;
const browser = fileBrowser(test);

async function docsPage(hash = ''): Promise<Page> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${API_URL}/docs${hash}`);
  await page.locator('.swagger-ui .info .title').first().waitFor({ timeout: WAIT_MS });
  return page;
}

test('the API serves the merchant document and the signing guide the documents link to', async (t) => {
  const merchant = await fetch(`${API_URL}/openapi.merchant.json`);
  t.is(merchant.status, 200);
  t.deepEqual(await merchant.json(), JSON.parse(JSON.stringify(merchantOpenApiDocument())));
  const full = (await (await fetch(`${API_URL}/openapi.json`)).json()) as { paths: object };
  t.deepEqual(full, JSON.parse(JSON.stringify(openApiDocument())));
  const guide = await fetch(`${API_URL}/docs/signing.md`);
  t.is(guide.status, 200);
  t.regex(guide.headers.get('content-type') ?? '', /^text\/markdown/);
  t.is(await guide.text(), readFileSync(join(ROOT, 'docs', 'signing.md'), 'utf8'));
  t.truthy(guide.headers.get('x-trace-id'));
});

test('/docs shows the signing formulas with their placeholders, and links the signing guide', async (t) => {
  const page = await docsPage();
  try {
    const guide = page.locator('.swagger-ui .info a[href="/docs/signing.md"]');
    t.is(await guide.count(), 1, 'the description links the guide');
    await page.locator('.swagger-ui button.authorize').first().click();
    const modal = page.locator('.swagger-ui .modal-ux');
    await modal.waitFor({ timeout: WAIT_MS });
    const text = ((await modal.textContent()) ?? '').replace(/\s+/g, ' ');
    t.true(text.includes('t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>'), text.slice(0, 800));
    t.true(text.includes(',v2=<hex HMAC-SHA256(secret, "<t>.<METHOD>.<path and query as sent>.<raw body>")>'), 'the request-bound form');
    t.true(text.includes('`whsec_` included') || text.includes('whsec_ included'), 'the HMAC key is the whole secret');
  } finally {
    await page.close();
  }
});

test('/docs shows an operation’s placeholders (a deep link) and the headers its answers carry', async (t) => {
  const page = await docsPage('#/Wallet/rotateDepositAddress');
  try {
    const operation = page.locator('#operations-Wallet-rotateDepositAddress');
    await operation.locator('.opblock-description-wrapper').first().waitFor({ timeout: WAIT_MS });
    const text = (await operation.textContent()) ?? '';
    t.true(text.includes("m/44'/195'/0'/0/<next index>"), 'the derivation path with its placeholder');
    for (const header of ['X-Trace-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) t.true(text.includes(header), header);
  } finally {
    await page.close();
  }
});

test('/docs switches between the full document and the merchant’s', async (t) => {
  const page = await docsPage();
  try {
    // Swagger UI renders the sections as they scroll into view: the document is told by its title and the URL it shows.
    const info = page.locator('.swagger-ui .info');
    t.regex((await info.textContent()) ?? '', /Merchant Payment Gateway API(?!:)/);
    t.is(await info.locator('a[href="/openapi.json"]').count(), 1, 'the full document first');
    const select = page.locator('.topbar select');
    t.deepEqual(await select.locator('option').allInnerTexts(), ['Full API (merchant, operator, payer page, V1)', 'Merchant API']);
    await select.selectOption({ label: 'Merchant API' });
    await page.locator('.swagger-ui .info .title', { hasText: 'the merchant operations' }).waitFor({ timeout: WAIT_MS });
    t.is(await info.locator('a[href="/openapi.merchant.json"]').count(), 1);
    t.regex((await info.textContent()) ?? '', /what a merchant calls with its HMAC key pair or its cabinet session/);
    await page.locator('#operations-tag-Deals').waitFor({ timeout: WAIT_MS });
  } finally {
    await page.close();
  }
});
