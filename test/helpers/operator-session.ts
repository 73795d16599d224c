/** Console accounts for tests: a fresh account of a role (made with the operator JWT), its session, and requests under it. */
import { randomBytes } from 'node:crypto';
import { API_URL, asOperator, readResponse } from './api';

export const ADMIN_BASE = '/api/v1/p2p/admin';

export interface Session {
  cookie: string;
  csrf: string;
}

export async function signIn(email: string, password: string, base = API_URL): Promise<Session> {
  const res = await readResponse(
    await fetch(`${base}${ADMIN_BASE}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) }),
  );
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: res.body.csrf_token };
}

/** A request under the session, with its CSRF token; `raw` sends bytes as they are (an upload). */
export async function asSession(s: Session, method: string, path: string, body?: unknown, options: { raw?: { body: Buffer; contentType: string } } = {}) {
  const headers: Record<string, string> = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf };
  let payload: BodyInit | undefined;
  if (options.raw) {
    headers['Content-Type'] = options.raw.contentType;
    payload = new Uint8Array(options.raw.body);
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  return readResponse(await fetch(`${API_URL}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) }));
}

let counter = 0;
export async function operatorAccount(role: 'arbiter' | 'finance' | 'support' | 'admin') {
  counter += 1;
  const email = `audit-${role}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const created = await asOperator('POST', `${ADMIN_BASE}/operators`, { email, password, role });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.status} ${created.text}`);
  return { id: created.body.operator.operator_id as string, role, session: await signIn(email, password) };
}
