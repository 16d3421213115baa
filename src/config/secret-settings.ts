// What a configuration message may show of a setting's value: never a secret, valid or not.
// A configuration error is printed and logged: it must never carry a secret, valid or not. These
// settings are never quoted at all; connection strings (DATABASE_URL, DATABASE_READ_URL, REDIS_URL)
// are quoted without their password (withoutPassword).
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'AUTH_SIGNING_KEY',
  'CONSOLE_OIDC_CLIENT_SECRET',
  'CONSOLE_SESSION_KEY',
  'METRICS_TOKEN',
  'WEBHOOK_SECRETS_KEY',
])
export function shownValue(name: string, value: unknown): string {
  if (SECRET_SETTINGS.has(name)) return '(secret, not shown)'
  return JSON.stringify(typeof value === 'string' ? withoutPassword(value) : value)
}

/** Query parameters of a connection string that carry a secret (libpq's password and sslpassword). */
const SECRET_CONNECTION_PARAMETERS = /([?&](?:[a-z_]*pass(?:word)?|secret|token)=)[^&#]*/gi

/**
 * A connection string as it may be shown: any password replaced by ***, even in one that does not
 * parse or lacks its scheme, and so are password parameters of its query string.
 */
export function withoutPassword(connectionString: string): string {
  // Greedy to the last @: a password that is not percent-encoded may hold one; better too much hidden.
  return connectionString
    .replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)|(?![a-z][a-z0-9+.-]*:\/\/))([^:@?#\s]*):.*@/i, '$1$2:***@')
    .replace(SECRET_CONNECTION_PARAMETERS, '$1***')
}
