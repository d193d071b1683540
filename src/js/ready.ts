// Whether the wasm is instantiated. Each entry point starts it in its own way (at once from
// bytes in Node and workerd; by top-level await in the browser entry; without blocking the
// module graph in the inline entry, which esbuild also bundles into CommonJS and classic
// scripts, where a top-level await cannot be) and registers it here. Calls that return a
// promise wait for it; synchronous ones (the view models, formatting) need it done and fail
// with code `not_initialized` before. `ready` (exported by every entry) resolves once it is.
import { TokenpadError } from './errors.js';

let done = false;
let loading: Promise<void> | null = null;
let failure: TokenpadError | null = null;
let settle: { resolve: () => void; reject: (e: TokenpadError) => void } | undefined;

/**
 * Resolves once the wasm is instantiated; rejects with `not_initialized` if it cannot be. With
 * `@tokenpad/client/init` it waits for your `init(...)` or `initSync(...)`.
 */
export const ready: Promise<void> = new Promise((resolve, reject) => {
  settle = { resolve, reject };
});
ready.catch(() => {});

/** The wasm is instantiated. */
export function markReady(): void {
  done = true;
  settle?.resolve();
}

/** Registers the wasm's instantiation; the promise it returns settles with it. */
export function startLoading(instantiating: Promise<unknown>): Promise<void> {
  loading = instantiating.then(markReady, (e: unknown) => {
    failure = new TokenpadError('not_initialized', `The wasm failed to load: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    settle?.reject(failure);
    throw failure;
  });
  // Reported by the calls that need it (and by `ready`), not as an unhandled rejection.
  loading.catch(() => {});
  return loading;
}

const NOT_STARTED = 'The wasm is not initialised: with @tokenpad/client/init, call `await init({ module_or_path })` or `initSync({ module })` first';

/** Resolves once the wasm is ready; rejects with `not_initialized` when it failed or was never started. */
export async function whenReady(): Promise<void> {
  if (done) return;
  if (loading) return loading;
  throw new TokenpadError('not_initialized', NOT_STARTED);
}

/** Throws `not_initialized` unless the wasm is ready (for the synchronous calls). */
export function assertReady(): void {
  if (done) return;
  if (failure) throw failure;
  throw new TokenpadError('not_initialized', loading
    ? 'The wasm is still loading: `await ready` (exported by @tokenpad/client) before the first synchronous call'
    : NOT_STARTED);
}
