// The account API (`/account/*`, docs/dashboard.md): the login cookie's routes, same origin only,
// JSON both ways. Everything about a merchant goes through the package's TokenpadServer
// instead (merchant.tsx), with the dashboard credential as its key.
import { serviceNow } from '@tokenpad/client';
// The account API's answers, typed from the Rust wire types (generated/api.d.ts).
import type { Account, AccountMerchant, AccountMerchantCreated, DashboardToken, Mailbox, Members } from '@tokenpad/client/server';
export type { Account, AccountMerchant, AccountMerchantCreated, DashboardToken, Mailbox, Members };

/** A failed call: the service's code and message, or the network's. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** `method path` on the account API; resolves to the answer's JSON (undefined for 204). */
export async function account<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: method === 'POST' ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
  } catch (e) {
    throw new ApiError('network_error', `The service did not answer: ${e instanceof Error ? e.message : String(e)}`, 0);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string }; code?: string; message?: string } | undefined) ?? {};
    const code = err.error?.code ?? err.code ?? `http_${res.status}`;
    const message = err.error?.message ?? err.message ?? (text.slice(0, 200) || res.statusText);
    throw new ApiError(code, message, res.status);
  }
  return json as T;
}

/** `GET /account`, or null when not logged in. */
export async function currentAccount(): Promise<Account | null> {
  try {
    return await account<Account>('GET', '/account');
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.code === 'not_logged_in')) return null;
    throw e;
  }
}

/** Whether this is a local run with the local mailbox (`GET /account/dev-mailbox` answers). */
export async function hasLocalMailbox(): Promise<boolean> {
  try {
    await account('GET', '/account/dev-mailbox?to=nobody%40example.com');
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds to wait before refreshing a credential that expires at `expiresAt` (service ms). */
export function refreshDelay(expiresAt: number): number {
  return Math.max(5_000, expiresAt - serviceNow() - 60_000);
}
