// npm run seed: migrate and seed DATABASE_URL; prints the demo merchant's credentials when it issues them.
import { loadConfig } from '../config';
import { prepareDatabase } from './database';

const config = loadConfig();
const result = await prepareDatabase(config.DATABASE_URL, config.SECRETS_ENCRYPTION_KEY, process.env.DEMO_WEBHOOK_URL ?? 'http://127.0.0.1:3999/webhooks');
console.log(`demo merchant: ${result.demoMerchantId}`);
if (result.demoCredentials) {
  console.log(`demo token:  ${result.demoCredentials.token}`);
  console.log(`demo secret: ${result.demoCredentials.secret}   (shown once)`);
} else {
  console.log('demo key pair was issued earlier (its secret is shown only once); rotate it to get a new one');
}
