/**
 * The page's static files (assets/): read once, served with their content hash in the URL so a
 * browser may keep them for a year and a new deploy is fetched at once.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AssetUrls } from './render';

interface Asset {
  body: string;
  type: string;
  version: string;
}

const read = (name: string, type: string): Asset => {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) };
};

export const PAYER_ASSETS: Readonly<Record<string, Asset>> = {
  'payer.js': read('payer.js', 'application/javascript; charset=utf-8'),
  'payer.css': read('payer.css', 'text/css; charset=utf-8'),
  'favicon.svg': read('favicon.svg', 'image/svg+xml'),
};

/** Served under the names the page has always used (api/routes/checkout/page.ts). */
const url = (path: string, name: string) => `/pay/assets/${path}?v=${PAYER_ASSETS[name]!.version}`;
export const ASSET_URLS: AssetUrls = {
  script: url('checkout.js', 'payer.js'),
  style: url('checkout.css', 'payer.css'),
  icon: url('favicon.svg', 'favicon.svg'),
};
