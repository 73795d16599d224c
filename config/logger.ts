import pino, { type Logger } from 'pino';

/** Structured JSON logs. Secrets are never passed to the logger; redact is a second fence. */
export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['secret', '*.secret', 'token', '*.token', 'authorization', '*.authorization', 'headers', '*.headers', 'password'],
      censor: '[redacted]',
    },
  });
}
