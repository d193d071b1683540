// Whether the wasm is instantiated: the entry points mark it; the `init` entry only once the
// caller's `init(...)` resolved. Calls before that fail with code `not_initialized`.
import { TokenpadError } from './errors.js';

let ready = false;

export function markReady(): void {
  ready = true;
}

export function assertReady(): void {
  if (!ready) {
    throw new TokenpadError('not_initialized',
      'The wasm is not initialised: with @tokenpad/client/init, call `await init({ module_or_path })` or `initSync({ module })` first');
  }
}
