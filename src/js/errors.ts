// TokenpadError: what every failing call of the package throws, a real class (`instanceof`
// works, also across two copies of the package, e.g. its ESM and CommonJS builds in one
// process), with the service's error code typed as the union of the codes it can answer.
import type { ErrorCode } from './generated/wire.js';

/** The package's own codes, for failures that are not the service's answer. */
export type ClientErrorCode =
  /** No connection (offline, DNS, refused, CORS). */
  | 'network_error'
  /** No complete answer within `timeoutMs`. */
  | 'timeout'
  /** The caller's `signal` aborted the call. */
  | 'aborted'
  /** An answer that is not the service's (a proxy's HTML page, for instance). */
  | 'http_error'
  /** The service's answer is not the shape this version expects. */
  | 'invalid_response'
  /** A secret key (sk_...) given to the browser client. */
  | 'secret_key_refused'
  /** The server client constructed in a browser. */
  | 'browser_refused'
  | 'invalid_options'
  | 'invalid_input'
  /** A job (token deployment) the server client waited for failed. */
  | 'job_failed'
  /** The wasm was not initialised (the `init` entry point, before `await init(...)`). */
  | 'not_initialized'
  /** verifyWebhook: a delivery whose tokenpad-signature does not verify (`details.reason`). */
  | 'invalid_webhook_signature';

/**
 * Every code a TokenpadError may carry: the service's (generated from its Rust `ErrorCode`)
 * and the package's. A newer service may answer a code this version does not list yet: it is
 * passed on as it came, hence the open `string` at the end (which keeps the completion).
 */
export type TokenpadErrorCode = ErrorCode | ClientErrorCode | (string & {});

export interface TokenpadErrorInit {
  status?: number;
  details?: Record<string, unknown>;
  requestId?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

export class TokenpadError extends Error {
  /** Stable, snake_case: the service's code or the package's. */
  readonly code: TokenpadErrorCode;
  /** The HTTP status, 0 when no answer arrived. */
  readonly status: number;
  /** The service's `details`, when it sent them (e.g. `field` for the field that failed). */
  readonly details?: Record<string, unknown>;
  /** The service's request id (`x-request-id`), to quote in a report, when it sent one. */
  readonly requestId?: string;
  /** When the service said when to come back (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;

  constructor(code: TokenpadErrorCode, message: string, init: TokenpadErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TokenpadError';
    this.code = code;
    this.status = init.status ?? 0;
    if (init.details !== undefined) this.details = init.details;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  /** True for TokenpadErrors, also those of another copy of this package. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      value instanceof Error &&
      value.name === 'TokenpadError' &&
      typeof (value as { code?: unknown }).code === 'string' &&
      typeof (value as { status?: unknown }).status === 'number'
    );
  }
}

/** True for the errors this package throws. */
export function isTokenpadError(value: unknown): value is TokenpadError {
  return value instanceof TokenpadError;
}

/**
 * A TokenpadError from whatever was thrown: the wasm's errors (an `Error` with `code` and
 * `status`) keep their code, status, message and details; anything else is an internal error.
 */
export function toTokenpadError(e: unknown, extra: TokenpadErrorInit = {}): TokenpadError {
  if (e instanceof TokenpadError && Object.getPrototypeOf(e) === TokenpadError.prototype) return e;
  const o = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
  const code = typeof o.code === 'string' ? o.code : 'internal_error';
  const message = typeof o.message === 'string' ? o.message : String(e);
  const details = typeof o.details === 'object' && o.details !== null ? (o.details as Record<string, unknown>) : undefined;
  return new TokenpadError(code, message, {
    status: typeof o.status === 'number' ? o.status : 0,
    details,
    requestId: extra.requestId ?? (typeof o.requestId === 'string' ? o.requestId : undefined),
    retryAfterMs: extra.retryAfterMs,
    cause: e instanceof TokenpadError ? undefined : e,
  });
}
