// npm run seed (the compose `setup` job): migrate DATABASE_URL as its owner, grant the app role
// (DATABASE_APP_ROLE, DATABASE_APP_PASSWORD) and seed. NODE_ENV=production seeds the catalogue only;
// elsewhere the demo data too, printing the demo merchant's credentials when it issues them.
import { loadConfig } from '../config';
import { prepareDatabase } from './database';

const config = loadConfig();
const result = await prepareDatabase(config.DATABASE_URL, config.SECRETS_ENCRYPTION_KEY, process.env.DEMO_WEBHOOK_URL ?? 'http://127.0.0.1:3999/webhooks', {
  mode: config.NODE_ENV === 'production' ? 'catalogue' : 'demo',
  appRole: config.DATABASE_APP_ROLE,
  cardDataKeys: config.CARD_DATA_KEYS,
  ...(config.DATABASE_APP_PASSWORD ? { appPassword: config.DATABASE_APP_PASSWORD } : {}),
});
console.log(`app role: ${config.DATABASE_APP_ROLE} (the API and workers connect as it)`);
if (!result.demoMerchantId) {
  console.log('catalogue seeded (production: no trader, liquidity, merchant or requisite; add them through the operator API)');
} else {
  console.log(`demo merchant: ${result.demoMerchantId}`);
  if (result.demoCredentials) {
    console.log(`demo token:  ${result.demoCredentials.token}`);
    console.log(`demo secret: ${result.demoCredentials.secret}   (shown once)`);
  } else {
    console.log('demo key pair was issued earlier (its secret is shown only once); rotate it to get a new one');
  }
}
