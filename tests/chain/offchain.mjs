// What tokenpad's chain tests compute without a node: the contracts' compiled artifacts
// (contracts/build, and Uniswap v3's from its npm packages), token addresses as CREATE2 gives
// them, EIP-3009 authorizations and TokenpadMarket's swap nonces and pulls, each the way the
// Rust side computes it. The node and what talks to it: anvil.mjs, which re-exports this.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { concat, encodeAbiParameters, getAddress, keccak256, parseSignature } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const require = createRequire(import.meta.url);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// ------------------------------------------------------------------ artifacts

const artifactCache = new Map();
/** contracts/build/<name>.json: { contractName, abi, bytecode, deployedBytecode, creationCodeHash }. */
export function artifact(name) {
  if (!artifactCache.has(name)) {
    const path = join(ROOT, 'contracts', 'build', `${name}.json`);
    if (!existsSync(path)) throw new Error(`${path} missing: run node scripts/build-contracts.mjs`);
    artifactCache.set(name, JSON.parse(readFileSync(path, 'utf8')));
  }
  return artifactCache.get(name);
}

/**
 * Uniswap's own compiled contracts, from their npm packages (pinned in package.json), deployed
 * unmodified: v3-core 1.0.1's UniswapV3Pool bytecode hashes to the POOL_INIT_CODE_HASH that
 * v3-periphery's contracts have built in, so the periphery finds the pools the factory creates.
 * WETH9 is the periphery's wrapped ETH (its constructors want one; tokenpad does not use it).
 */
export const UNISWAP_ARTIFACTS = Object.freeze({
  WETH9: '@uniswap/v2-periphery/build/WETH9.json',
  UniswapV3Factory: '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
  UniswapV3Pool: '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
  NFTDescriptor: '@uniswap/v3-periphery/artifacts/contracts/libraries/NFTDescriptor.sol/NFTDescriptor.json',
  NonfungibleTokenPositionDescriptor:
    '@uniswap/v3-periphery/artifacts/contracts/NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json',
  NonfungiblePositionManager: '@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
  SwapRouter: '@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json',
  QuoterV2: '@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json',
});

/** keccak256 of UniswapV3Pool's creation code, as built into Uniswap v3's periphery (every chain). */
export const POOL_INIT_CODE_HASH = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54';

/**
 * One of UNISWAP_ARTIFACTS: { contractName, abi, bytecode, linkReferences }, bytecode 0x-prefixed
 * (WETH9's artifact has no prefix) and still unlinked (see linkBytecode).
 */
export function uniswapArtifact(name) {
  const key = `uniswap:${name}`;
  if (!artifactCache.has(key)) {
    const path = UNISWAP_ARTIFACTS[name];
    if (!path) throw new Error(`no Uniswap artifact ${name}`);
    let json;
    try {
      json = JSON.parse(readFileSync(require.resolve(path), 'utf8'));
    } catch (e) {
      throw new Error(`${path}: ${e.message} (run npm ci)`);
    }
    const bytecode = json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}`;
    artifactCache.set(key, { contractName: name, abi: json.abi, bytecode, linkReferences: json.linkReferences ?? {} });
  }
  return artifactCache.get(key);
}

/**
 * Puts library addresses into a Hardhat artifact's bytecode at its linkReferences
 * ({ file: { Library: [{ start, length }] } }, byte offsets into the code).
 * libraries: { Library: address }; every referenced library must be given.
 */
export function linkBytecode({ bytecode, linkReferences }, libraries) {
  let hex = bytecode.slice(2);
  for (const refs of Object.values(linkReferences ?? {})) {
    for (const [lib, places] of Object.entries(refs)) {
      const address = libraries[lib];
      if (!address) throw new Error(`library ${lib} needs an address`);
      for (const { start, length } of places) {
        if (length !== 20) throw new Error(`library ${lib}: a link of ${length} bytes`);
        hex = hex.slice(0, start * 2) + address.slice(2).toLowerCase() + hex.slice((start + length) * 2);
      }
    }
  }
  if (hex.includes('__')) throw new Error('bytecode still has unlinked libraries');
  return `0x${hex}`;
}

// ------------------------------------------------------------------ tokens

/**
 * The address TokenpadFactory.deploy(salt, ...) creates when called by `deployer`, computed off
 * chain, as the Rust side computes it:
 *   keccak256(0xff ++ factory ++ keccak256(abi.encode(deployer, salt)) ++ creationCodeHash)[12:]
 * creationCodeHash is contracts/build/TokenpadToken.json's (keccak256 of the creation code).
 */
export function tokenAddress(factory, deployer, salt, creationCodeHash = artifact('TokenpadToken').creationCodeHash) {
  const create2Salt = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [deployer, salt]));
  return create2Address(factory, create2Salt, creationCodeHash);
}

/** EIP-1014: keccak256(0xff ++ creator ++ salt ++ initCodeHash)[12:], checksummed. */
export function create2Address(creator, salt, initCodeHash) {
  const hash = keccak256(concat(['0xff', creator, salt, initCodeHash]));
  return getAddress('0x' + hash.slice(-40));
}

// ------------------------------------------------------------------ EIP-3009 signatures

// EIP-3009's typed data: a transfer and a receipt authorize the same fields.
const AUTHORIZATION = Object.freeze([
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
]);
export const AUTH_TYPES = Object.freeze({
  TransferWithAuthorization: AUTHORIZATION,
  ReceiveWithAuthorization: AUTHORIZATION,
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
});

/**
 * Signs an EIP-3009 message with `privateKey` under the token's EIP-712 domain
 * { name, version, chainId, verifyingContract: token }. kind: 'TransferWithAuthorization' (default),
 * 'ReceiveWithAuthorization' or 'CancelAuthorization'. Returns { v, r, s, signature }.
 */
export async function signAuthorization({ privateKey, token, chainId, name, version, kind = 'TransferWithAuthorization', message }) {
  const account = privateKeyToAccount(privateKey);
  const signature = await account.signTypedData({
    domain: { name, version, chainId, verifyingContract: token },
    types: { [kind]: AUTH_TYPES[kind] },
    primaryType: kind,
    message,
  });
  const { r, s, v } = parseSignature(signature);
  return { v: Number(v), r, s, signature };
}

// ------------------------------------------------------------------ TokenpadMarket

/**
 * The EIP-3009 nonce a holder signs for a TokenpadMarket trade, as the contract's swapNonce:
 *   keccak256(abi.encode(market, from, tokenIn, tokenOut, exactIn, amount, limit, salt))
 * (amount, limit) = (amountIn, minAmountOut) for exact in, (amountOut, maxAmountIn) for exact out.
 */
export function swapNonce(market, { from, tokenIn, tokenOut, exactIn, amount, limit, salt }) {
  return keccak256(
    encodeAbiParameters(
      ['address', 'address', 'address', 'address', 'bool', 'uint256', 'uint256', 'bytes32'].map((type) => ({ type })),
      [market, from, tokenIn, tokenOut, exactIn, BigInt(amount), BigInt(limit), salt],
    ),
  );
}

/**
 * A TokenpadMarket (or TokenpadLocker) Pull: `privateKey`'s EIP-3009 ReceiveWithAuthorization of
 * `value` of `token` to `market` (or `to`: the locker), under the token's domain { name, version }.
 * Returns the struct as viem encodes it: { from, value, validAfter, validBefore, nonce, v, r, s }.
 */
export async function signPull({ privateKey, token, name, version, chainId, market, to = market, value, nonce, validAfter = 0n, validBefore }) {
  const from = privateKeyToAccount(privateKey).address;
  const message = { from, to, value: BigInt(value), validAfter: BigInt(validAfter), validBefore: BigInt(validBefore), nonce };
  const { v, r, s } = await signAuthorization({ privateKey, token, chainId, name, version, kind: 'ReceiveWithAuthorization', message });
  return { from, value: message.value, validAfter: message.validAfter, validBefore: message.validBefore, nonce, v, r, s };
}

/** A Pull of value 0: openPool skips it (no signature needed). */
export const EMPTY_PULL = Object.freeze({
  from: '0x0000000000000000000000000000000000000000',
  value: 0n,
  validAfter: 0n,
  validBefore: 0n,
  nonce: `0x${'00'.repeat(32)}`,
  v: 0,
  r: `0x${'00'.repeat(32)}`,
  s: `0x${'00'.repeat(32)}`,
});
