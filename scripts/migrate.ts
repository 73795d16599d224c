// npm run migrate: create the database if missing, apply pending migrations as DATABASE_URL's role
// (the owner) and grant the app role (DATABASE_APP_ROLE) what the API and workers need.
import { loadConfig } from '../config';
import { ensureDatabase, migrate } from '../db/migrate';
import { grantAppRole } from '../db/roles';

const config = loadConfig();
await ensureDatabase(config.DATABASE_URL);
await migrate(config.DATABASE_URL, (line) => console.log(line));
await grantAppRole(config.DATABASE_URL, {
  role: config.DATABASE_APP_ROLE,
  ...(config.DATABASE_APP_PASSWORD ? { password: config.DATABASE_APP_PASSWORD } : {}),
});
console.log(`migrations up to date; app role ${config.DATABASE_APP_ROLE} granted`);
