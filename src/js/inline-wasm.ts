// The wasm's bytes from wasm-gz.js (written by scripts/build-pkg.sh: the optimized wasm,
// gzipped and base64-encoded), inflated with the platform's DecompressionStream.
import data from './wasm-gz.js';

export async function wasmBytes(): Promise<ArrayBuffer> {
  const bin = atob(data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).arrayBuffer();
}
