// verifyWebhook: checks a webhook delivery's `tokenpad-signature` header and returns its event.
// The header is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the webhook's
// secret (`whsec_...`, shown once when the webhook was created): Stripe's scheme. WebCrypto only,
// so it runs wherever the server client does (Node 20+, Deno, Bun, Workers). The comparison
// takes the same time wherever the signatures differ.
import { TokenpadError } from './errors.js';
import type { Event } from './generated/api.js';
import { parseExact } from './json.js';

export interface VerifyWebhookOptions {
  /**
   * How far `t` may be from now, in seconds (default 300): an old delivery replayed by someone
   * who recorded it is refused. Retries are signed afresh, so they pass.
   */
  toleranceSeconds?: number;
  /** Now, in unix seconds (tests). */
  nowSeconds?: number;
}

const encoder = new TextEncoder();

function refuse(message: string, reason: string): TokenpadError {
  return new TokenpadError('invalid_webhook_signature', message, { details: { reason } });
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Equal strings, in a time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i % Math.max(b.length, 1));
  return diff === 0;
}

/**
 * Verifies a delivery and returns its event (amounts read exactly, as the server client's
 * answers). `rawBody` must be the request's body exactly as it arrived (a string or bytes),
 * before any JSON parsing: re-serialised JSON does not verify. `header` is the
 * `tokenpad-signature` header. Throws a TokenpadError with code `invalid_webhook_signature`
 * (`details.reason`: `missing_header`, `malformed_header`, `timestamp_out_of_tolerance`,
 * `signature_mismatch`, `invalid_body`) when the delivery is not genuine.
 *
 * Deliveries come at least once: deduplicate on the event's `id`.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<Event> {
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) {
    throw new TokenpadError('invalid_options', 'secret must be the webhook signing secret (whsec_...)');
  }
  let bytes: Uint8Array;
  if (typeof rawBody === 'string') bytes = encoder.encode(rawBody);
  else if (rawBody instanceof Uint8Array) bytes = rawBody;
  else throw new TokenpadError('invalid_input', 'rawBody must be the raw request body (a string or bytes), not parsed JSON');
  if (typeof header !== 'string' || header.trim() === '') {
    throw refuse('The tokenpad-signature header is missing', 'missing_header');
  }
  let t: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (t === undefined || signatures.length === 0) {
    throw refuse('The tokenpad-signature header is not t=<seconds>,v1=<hex>', 'malformed_header');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (tolerance >= 0 && Math.abs(now - t) > tolerance) {
    throw refuse(`The signature's time is more than ${tolerance} s from now`, 'timestamp_out_of_tolerance');
  }
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!subtle) throw new TokenpadError('invalid_options', 'verifyWebhook needs WebCrypto (globalThis.crypto.subtle)');
  const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix, 0);
  signed.set(bytes, prefix.length);
  const expected = hex(await subtle.sign('HMAC', key, signed));
  let ok = false;
  for (const s of signatures) ok = sameText(expected, s) || ok;
  if (!ok) throw refuse('The signature does not match the body under this secret', 'signature_mismatch');
  let event: unknown;
  try {
    event = parseExact(new TextDecoder().decode(bytes));
  } catch {
    event = undefined;
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'string') {
    throw refuse('The signed body is not an event', 'invalid_body');
  }
  return event as Event;
}
