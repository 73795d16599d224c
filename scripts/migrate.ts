// npm run migrate: create the database if missing and apply pending migrations.
import { loadConfig } from '../config';
import { ensureDatabase, migrate } from '../db/migrate';

const config = loadConfig();
await ensureDatabase(config.DATABASE_URL);
await migrate(config.DATABASE_URL, (line) => console.log(line));
console.log('migrations up to date');
