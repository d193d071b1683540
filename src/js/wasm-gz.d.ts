/** The optimized wasm, gzipped and base64-encoded (written by scripts/build-pkg.sh). */
declare const data: string;
export default data;
