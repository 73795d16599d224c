import { createHash } from 'node:crypto';
import type { Db, Sql } from './sql';
import type { SecretBox } from '../domain/crypto/secret-box';
import { replaceKeyPair } from './queries/api-keys';
import { upsertRate } from './queries/catalog';
import { creditTraderLiquidity, recordDeposit } from './queries/deposits';
import { DEFAULT_TENANT_ID, insertMerchant } from './queries/merchants';
import { insertRequisite } from './queries/traders';
import { sealRequisiteNumbers } from './queries/requisite-secrets';
import type { KeyRing } from '../domain/crypto/key-ring';
import { ensureSandboxRequisites } from './queries/sandbox';
import { ensureWallet } from './queries/wallets';
import { insertAccount } from './queries/accounts';
import { generatePassword, hashPassword } from '../domain/crypto/passwords';

/** Stable ids make the seed idempotent and the demo data recognisable across restarts. */
const CURRENCIES = [
  { id: '10000000-0000-4000-8000-000000000643', code: 'RUB', numeric: 643, name: 'Russian ruble', exponent: 2 },
  { id: '10000000-0000-4000-8000-000000000860', code: 'UZS', numeric: 860, name: 'Uzbekistani sum', exponent: 2 },
  { id: '10000000-0000-4000-8000-000000000398', code: 'KZT', numeric: 398, name: 'Kazakhstani tenge', exponent: 2 },
  { id: '10000000-0000-4000-8000-000000000949', code: 'TRY', numeric: 949, name: 'Turkish lira', exponent: 2 },
  { id: '10000000-0000-4000-8000-000000000000', code: 'USDT', numeric: null, name: 'Tether USD (TRC-20)', exponent: 2 },
];

const METHODS = [
  { id: '20000000-0000-4000-8000-000000000001', slug: 'card-rub', name: 'Bank card (RUB)', currency: 'RUB', types: ['BANK_CARD'] },
  { id: '20000000-0000-4000-8000-000000000002', slug: 'sbp-rub', name: 'SBP fast payments (RUB)', currency: 'RUB', types: ['SBP'] },
  { id: '20000000-0000-4000-8000-000000000003', slug: 'card-uzs', name: 'Bank card (UZS)', currency: 'UZS', types: ['BANK_CARD'] },
  { id: '20000000-0000-4000-8000-000000000004', slug: 'card-kzt', name: 'Bank card (KZT)', currency: 'KZT', types: ['BANK_CARD'] },
  { id: '20000000-0000-4000-8000-000000000005', slug: 'iban-try', name: 'Bank transfer (TRY)', currency: 'TRY', types: ['BANK_TRANSFER'] },
];

const BANKS = [
  { bank: 'sberbank', display: 'Sberbank', country: 'RU', currencies: ['RUB'], methods: ['BANK_CARD', 'SBP'] },
  { bank: 'tbank', display: 'T-Bank', country: 'RU', currencies: ['RUB'], methods: ['BANK_CARD', 'SBP'] },
  { bank: 'kapitalbank', display: 'Kapitalbank', country: 'UZ', currencies: ['UZS'], methods: ['BANK_CARD'] },
  { bank: 'kaspi', display: 'Kaspi Bank', country: 'KZ', currencies: ['KZT'], methods: ['BANK_CARD'] },
  { bank: 'ziraat', display: 'Ziraat Bankası', country: 'TR', currencies: ['TRY'], methods: ['BANK_TRANSFER'] },
];

/** A requisite's bank is of its currency's country: the trader's own bank in Russia, a local one elsewhere. */
const BANK_OF_CURRENCY: Record<string, string> = { UZS: 'kapitalbank', KZT: 'kaspi', TRY: 'ziraat' };

/** A Turkish IBAN (Ziraat, bank code 00010) with its ISO 7064 check digits, as bank apps validate them. */
function turkishIban(account: string): string {
  const bban = `00010${'0'}${account.padStart(16, '0')}`;
  const check = 98n - (BigInt(`${bban}292700`) % 97n); // "TR00" moved to the end, T = 29, R = 27
  return `TR${check.toString().padStart(2, '0')}${bban}`;
}

/** BUY and SELL, micro-units of fiat per 1 USDT. */
const RATES: Record<string, [bigint, bigint]> = {
  RUB: [92_500_000n, 95_000_000n],
  UZS: [12_800_000_000n, 13_000_000_000n],
  KZT: [480_000_000n, 490_000_000n],
  TRY: [34_000_000n, 34_800_000n],
};

const TRADERS = [
  { id: '30000000-0000-4000-8000-000000000001', name: 'Demo trader Alpha', bank: 'sberbank' },
  { id: '30000000-0000-4000-8000-000000000002', name: 'Demo trader Bravo', bank: 'sberbank' },
  { id: '30000000-0000-4000-8000-000000000003', name: 'Demo trader Charlie', bank: 'sberbank' },
];
/** 100,000,000 USDT in cents per demo trader: hundreds of concurrent deals at the maximum still match. */
const TRADER_LIQUIDITY = 10_000_000_000n;

/**
 * The demo trader who works through the trader app (docs/trader.md): its own account, made once
 * with a password printed that once; it sets up its authenticator at its first sign-in. Its RUB
 * requisites are the demo's only ones at T-Bank (the others' are at Sberbank), so a T-Bank payer
 * meets it first while it is online.
 */
const DEMO_APP_TRADER = { id: '30000000-0000-4000-8000-000000000004', name: 'Demo trader Dana', bank: 'tbank' };
export const SEED_TRADER_EMAIL = 'trader@gateway.local';
const SEED_TRADER_ACCOUNT_ID = '40000000-0000-4000-8000-000000000002';

const DEMO_MERCHANT_EMAIL = 'demo@merchant.example';
const DEMO_LIVE_MERCHANT_EMAIL = 'live@merchant.example';
/** The first console account (role admin), made once; its password is printed only then. */
export const SEED_ADMIN_EMAIL = 'admin@gateway.local';
const SEED_ADMIN_ID = '40000000-0000-4000-8000-000000000001';

/**
 * What a seed makes: `catalogue` (production: NODE_ENV=production, the compose `setup` job) is the
 * catalogue and the first console account only — currencies, payment methods, banks, rates — and
 * never a trader, liquidity, a merchant or a requisite, since real merchants' deals would be matched
 * to them. `demo` (npm start, the test and bench stacks) adds the demo traders, each funded by a
 * recorded top-up (the path of POST /admin/traders/{id}/deposits), their requisites, the sandbox
 * trader and the demo merchant with its recorded deposit.
 */
export type SeedMode = 'catalogue' | 'demo';

export interface SeedResult {
  /** The demo merchant (`demo` mode only). */
  demoMerchantId?: string;
  /** Present only when this run issued the demo key pair (the secret is shown once). */
  demoCredentials?: { token: string; secret: string };
  /** The live demo merchant (`demo` mode only): its deals meet the demo traders. */
  demoLiveMerchantId?: string;
  /** Present only when this run issued the live demo merchant's key pair. */
  demoLiveCredentials?: { token: string; secret: string };
  /** Present only when this run made the admin console account (the password is shown once). */
  adminOperator?: { email: string; password: string };
  /** Present only when this run made the demo trader's account (`demo` mode; the password is shown once). */
  demoTrader?: { email: string; password: string };
}

export async function seed(
  sql: Sql,
  secretBox: SecretBox,
  options: {
    demoWebhookUrl: string;
    mode: SeedMode;
    cardData: KeyRing;
    /** The sandbox's virtual bank device's public key (virtualDeviceKeys over SECRETS_ENCRYPTION_KEY): it pairs the device with the sandbox trader. */
    virtualDeviceKey: Uint8Array;
  },
): Promise<SeedResult> {
  const adminPassword = generatePassword();
  const adminHash = await hashPassword(adminPassword);
  const traderPassword = generatePassword();
  const traderHash = await hashPassword(traderPassword);
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(7303002)`;
    await seedCatalogue(tx);
    const demo = options.mode === 'demo' ? await seedDemo(tx, secretBox, options.cardData, options.demoWebhookUrl, options.virtualDeviceKey) : {};
    const demoTrader =
      options.mode === 'demo' && (await seedAppTrader(tx, options.cardData, traderHash))
        ? { demoTrader: { email: SEED_TRADER_EMAIL, password: traderPassword } }
        : {};
    // Idempotent across restarts: made once (stable id, on conflict nothing), its password printed that once.
    const admin = await insertAccount(tx, {
      id: SEED_ADMIN_ID,
      party: 'operator',
      email: SEED_ADMIN_EMAIL,
      passwordHash: adminHash,
      role: 'admin',
      createdBy: 'seed',
    });
    return { ...demo, ...demoTrader, ...(admin ? { adminOperator: { email: SEED_ADMIN_EMAIL, password: adminPassword } } : {}) };
  });
}

/** Currencies, payment methods, banks and the first rates: what every deployment starts with. */
async function seedCatalogue(tx: Db): Promise<void> {
  for (const c of CURRENCIES) {
    await tx`
      insert into currencies (id, tenant_id, code, numeric_code, name, exponent)
      values (${c.id}, ${DEFAULT_TENANT_ID}, ${c.code}, ${c.numeric}, ${c.name}, ${c.exponent})
      on conflict do nothing`;
  }
  for (const m of METHODS) {
    await tx`
      insert into payment_methods (id, tenant_id, slug, name, currency_code, requisite_types)
      values (${m.id}, ${DEFAULT_TENANT_ID}, ${m.slug}, ${m.name}, ${m.currency}, ${m.types})
      on conflict do nothing`;
  }
  for (const b of BANKS) {
    await tx`
      insert into banks (id, tenant_id, bank_name, display_name, country, currencies, methods)
      values (gen_random_uuid(), ${DEFAULT_TENANT_ID}, ${b.bank}, ${b.display}, ${b.country}, ${b.currencies}, ${b.methods})
      on conflict do nothing`;
  }
  for (const [currency, [buy, sell]] of Object.entries(RATES)) {
    const [existing] = await tx`select 1 from rates where tenant_id = ${DEFAULT_TENANT_ID} and currency_code = ${currency}`;
    if (!existing) await upsertRate(tx, DEFAULT_TENANT_ID, currency, buy, sell);
  }
}

/** The demo traders, their requisites, the sandbox trader and the demo merchant (never in production). */
async function seedDemo(
  tx: Db,
  secretBox: SecretBox,
  cardData: KeyRing,
  demoWebhookUrl: string,
  virtualDeviceKey: Uint8Array,
): Promise<Pick<SeedResult, 'demoMerchantId' | 'demoCredentials' | 'demoLiveMerchantId' | 'demoLiveCredentials'>> {
  for (const [index, t] of TRADERS.entries()) {
    const [existing] = await tx`select 1 from traders where id = ${t.id}`;
    if (existing) {
      await resealDemoRequisites(tx, cardData, t.id, index);
      continue;
    }
    await tx`insert into traders (id, tenant_id, name) values (${t.id}, ${DEFAULT_TENANT_ID}, ${t.name})`;
    await equipDemoTrader(tx, cardData, t, index);
  }

  // The built-in sandbox trader with a requisite for every active payment method, served by its virtual bank device (docs/sandbox.md).
  await ensureSandboxRequisites(tx, DEFAULT_TENANT_ID, virtualDeviceKey);

  // The demo merchant is a sandbox merchant — its deals go to the sandbox trader, driven by the
  // amount (docs/sandbox.md), so a first session sees a deal complete unaided.
  const sandbox = await seedDemoMerchant(tx, secretBox, { name: 'Demo Shop', email: DEMO_MERCHANT_EMAIL, sandbox: true, webhookUrl: demoWebhookUrl });
  // Its live twin meets the demo traders, the trader app's Dana among them (docs/trader.md).
  const live = await seedDemoMerchant(tx, secretBox, { name: 'Demo Shop Live', email: DEMO_LIVE_MERCHANT_EMAIL, sandbox: false, webhookUrl: demoWebhookUrl });
  return {
    demoMerchantId: sandbox.id,
    ...(sandbox.credentials ? { demoCredentials: sandbox.credentials } : {}),
    demoLiveMerchantId: live.id,
    ...(live.credentials ? { demoLiveCredentials: live.credentials } : {}),
  };
}

/** A demo merchant (made once): funded by a recorded deposit of 10,000 USDT when made, its key pair issued once. */
async function seedDemoMerchant(tx: Db, secretBox: SecretBox, m: { name: string; email: string; sandbox: boolean; webhookUrl: string }) {
  const [existing] = await tx<{ id: string }[]>`select id from merchants where email = ${m.email}`;
  const id =
    existing?.id ??
    (await insertMerchant(tx, {
      name: m.name,
      email: m.email,
      webhook_url: m.webhookUrl,
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 250,
      payout_fee_bps: 150,
      sandbox: m.sandbox,
    }));
  const wallet = await ensureWallet(tx, 'merchant', id, 'USDT');
  // Funded once, when it is made (an older database holds the sandbox one's first deposit under a pre-canonical hash).
  if (!existing) {
    const txHash = createHash('sha256')
      .update(m.sandbox ? 'seed-demo-deposit' : 'seed-demo-live-deposit')
      .digest('hex');
    await recordDeposit(tx, { merchantId: id, walletId: wallet.id, amount: 1_000_000n, txHash });
  }
  const [key] = await tx`select 1 from api_keys where merchant_id = ${id}`;
  const credentials = key ? undefined : await replaceKeyPair(tx, secretBox, id, 0);
  return { id, credentials };
}

/** The numbers of a demo trader's requisite of a type (the trader's index makes them its own). */
function demoNumbers(type: string, index: number) {
  const suffix = String(index + 1).padStart(2, '0');
  return {
    card_number: type === 'BANK_CARD' ? `22000000000000${suffix}` : '',
    // +7 900 000-00-01: a Russian mobile number of 11 digits.
    phone_number: type === 'SBP' || type === 'SIM' ? `+790000000${suffix}` : '',
    iban: type === 'BANK_TRANSFER' ? turkishIban(`51964578413260${suffix}`) : '',
  };
}

/** A database from before the numbers were sealed kept none of a demo trader's: they are sealed again here. */
async function resealDemoRequisites(tx: Db, cardData: KeyRing, traderId: string, index: number) {
  const unsealed = await tx<{ id: string; requisite_type: string }[]>`
    select id, requisite_type from requisites
    where trader_id = ${traderId} and card_sealed is null and phone_sealed is null and iban_sealed is null`;
  for (const r of unsealed) {
    const { card_sealed, phone_sealed, iban_sealed } = sealRequisiteNumbers(cardData, r.id, demoNumbers(r.requisite_type, index));
    await tx`update requisites set ${tx({ card_sealed, phone_sealed, iban_sealed }, 'card_sealed', 'phone_sealed', 'iban_sealed')} where id = ${r.id}`;
  }
}

/** A demo trader's money and requisites: funded by a recorded top-up, a requisite for every method. */
async function equipDemoTrader(tx: Db, cardData: KeyRing, t: { id: string; name: string; bank: string }, index: number) {
  const wallet = await ensureWallet(tx, 'trader', t.id, 'USDT');
  // Funded as an operator's top-up is (POST /admin/traders/{id}/deposits): a recorded chain
  // credit and its keyed posting, never a bare balance, so the ledger check traces it.
  await creditTraderLiquidity(tx, {
    traderId: t.id,
    walletId: wallet.id,
    amount: TRADER_LIQUIDITY,
    txHash: createHash('sha256').update(`seed-trader-${t.id}`).digest('hex'),
  });
  for (const m of METHODS) {
    const type = m.types[0]!;
    await insertRequisite(tx, cardData, {
      trader_id: t.id,
      payment_method_id: m.id,
      requisite_type: type,
      ...demoNumbers(type, index),
      holder_name: `${t.name.replace('Demo trader ', '')} Holder`,
      bank_name: BANK_OF_CURRENCY[m.currency] ?? t.bank,
      min_amount: 100n,
      max_amount: 100_000_000n,
      daily_limit: null,
    });
  }
}

/**
 * The demo trader of the trader app (made once): approved by the seed, funded and equipped like the
 * others, with its account (which must set up an authenticator at its first sign-in). Answers
 * whether this run made the account.
 */
async function seedAppTrader(tx: Db, cardData: KeyRing, passwordHash: string): Promise<boolean> {
  const t = DEMO_APP_TRADER;
  const [existing] = await tx`select 1 from traders where id = ${t.id}`;
  if (!existing) {
    await tx`
      insert into traders (id, tenant_id, name, status, approved_at, approved_by)
      values (${t.id}, ${DEFAULT_TENANT_ID}, ${t.name}, 'ACTIVE', now(), 'seed')`;
    await equipDemoTrader(tx, cardData, t, TRADERS.length);
  } else await resealDemoRequisites(tx, cardData, t.id, TRADERS.length);
  const account = await insertAccount(tx, {
    id: SEED_TRADER_ACCOUNT_ID,
    party: 'trader',
    traderId: t.id,
    email: SEED_TRADER_EMAIL,
    passwordHash,
    role: 'trader',
    createdBy: 'seed',
    totpRequired: true,
  });
  return account !== undefined;
}
