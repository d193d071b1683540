// For the package build only: what the entry points import that TypeScript does not know.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
declare module 'node:fs' {
  export function readFileSync(path: string | URL): Uint8Array;
}
declare module 'node:path' {
  export function join(...parts: string[]): string;
}
