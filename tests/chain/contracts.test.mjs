// The contracts on a real local node (anvil): EIP-3009 authorizations, the batch calls, the
// factory's CREATE2 addresses, one-time initialization and the test USDC.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeAbiParameters,
  getAddress,
  hashTypedData,
  keccak256,
  toBytes,
  toHex,
  domainSeparator as viemDomainSeparator,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  AUTH_TYPES,
  DEPLOYER,
  DEV_ACCOUNTS,
  ROOT,
  artifact,
  balanceOf,
  clients,
  create2Address,
  deployArtifact,
  deployBase,
  deployToken,
  ethBalance,
  fund,
  latestTimestamp,
  mintUsdc,
  read,
  rpc,
  send,
  signAuthorization,
  startAnvil,
  tokenAddress,
} from './anvil.mjs';

const RELAYER = DEV_ACCOUNTS[1]; // submits holders' authorizations and pays the gas
const OTHER = DEV_ACCOUNTS[2];
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const TOKEN_ABI = artifact('TokenpadToken').abi;
const USDC_ABI = artifact('TestUSDC').abi;
const FACTORY_ABI = artifact('TokenpadFactory').abi;

let node;
let base;
let moon; // a TokenpadToken deployed through the factory
const MOON = { name: 'Moon', symbol: 'MOON', supply: 1_000_000n * 10n ** 18n };

const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
const holder = () => {
  const key = generatePrivateKey();
  return { key, address: privateKeyToAccount(key).address };
};

/** The custom error a rejected call reverts with (viem decodes it from the ABI). */
async function revertName(promise) {
  try {
    await promise;
  } catch (e) {
    for (let c = e; c; c = c.cause) if (c.data?.errorName) return c.data.errorName;
    throw e;
  }
  assert.fail('expected a revert');
}

/** Runs the call as eth_call (simulation): resolves to the decoded custom error name, if any. */
async function simulate({ address, abi, functionName, args, account = RELAYER }) {
  const { publicClient } = await clients(node.rpcUrl, account);
  return publicClient.simulateContract({ address, abi, functionName, args, account });
}

/** Sends with a fixed gas limit (no estimation, so a reverting call is mined); returns the receipt. */
async function sendRaw({ address, abi, functionName, args, account = RELAYER, gas = 3_000_000n }) {
  const { publicClient, walletClient } = await clients(node.rpcUrl, account);
  const hash = await walletClient.writeContract({ address, abi, functionName, args, gas });
  return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** A signed TransferWithAuthorization on `token` from `from` (a { key, address }). */
async function authorize(token, domainName, domainVersion, from, to, value, window = {}) {
  const now = await latestTimestamp(node.rpcUrl);
  const message = {
    from: from.address,
    to,
    value: BigInt(value),
    validAfter: window.validAfter ?? 0n,
    validBefore: window.validBefore ?? now + 3600n,
    nonce: window.nonce ?? randomNonce(),
  };
  const sig = await signAuthorization({
    privateKey: window.signerKey ?? from.key,
    token,
    chainId: node.chainId,
    name: domainName,
    version: domainVersion,
    kind: window.kind,
    message,
  });
  return { ...message, v: sig.v, r: sig.r, s: sig.s };
}
const args9 = (a) => [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.v, a.r, a.s];

before(async () => {
  node = await startAnvil();
  base = await deployBase(node.rpcUrl);
  const salt = keccak256(toBytes('moon'));
  const { token } = await deployToken(node.rpcUrl, base.factory, { salt, ...MOON, treasury: DEPLOYER.address });
  moon = token;
});

after(async () => {
  await node?.stop();
});

describe('EIP-712 domain and typehashes', () => {
  test('typehashes are the standard EIP-3009 ones (as USDC)', async () => {
    const t = (fn) => read(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: fn });
    assert.equal(await t('TRANSFER_WITH_AUTHORIZATION_TYPEHASH'), '0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267');
    assert.equal(await t('RECEIVE_WITH_AUTHORIZATION_TYPEHASH'), '0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8');
    assert.equal(await t('CANCEL_AUTHORIZATION_TYPEHASH'), '0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429');
  });

  test('token domain is (its initialized name, "1", chainId, itself); USDC domain is ("USD Coin", "2", ...)', async () => {
    for (const [address, abi, name, version] of [
      [moon, TOKEN_ABI, 'Moon', '1'],
      [base.usdc, USDC_ABI, 'USD Coin', '2'],
    ]) {
      const expected = viemDomainSeparator({ domain: { name, version, chainId: node.chainId, verifyingContract: address } });
      assert.equal(await read(node.rpcUrl, { address, abi, functionName: 'DOMAIN_SEPARATOR' }), expected);
      assert.equal(await read(node.rpcUrl, { address, abi, functionName: 'version' }), version);
      const d = await read(node.rpcUrl, { address, abi, functionName: 'eip712Domain' });
      assert.deepEqual(d.slice(0, 5), ['0x0f', name, version, BigInt(node.chainId), address]);
    }
  });

  test('TestUSDC is "USD Coin" / "USDC" with 6 decimals; tokens have 18', async () => {
    const r = (address, abi, fn) => read(node.rpcUrl, { address, abi, functionName: fn });
    assert.equal(await r(base.usdc, USDC_ABI, 'name'), 'USD Coin');
    assert.equal(await r(base.usdc, USDC_ABI, 'symbol'), 'USDC');
    assert.equal(await r(base.usdc, USDC_ABI, 'decimals'), 6);
    assert.equal(await r(moon, TOKEN_ABI, 'decimals'), 18);
  });
});

describe('transferWithAuthorization', () => {
  test("a holder with no ETH moves tokens by signature; the relayer pays; the nonce is spent", async () => {
    const alice = holder();
    const bob = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [alice.address, 100n] });
    assert.equal(await ethBalance(node.rpcUrl, alice.address), 0n);

    const a = await authorize(moon, 'Moon', '1', alice, bob.address, 40n);
    assert.equal(await read(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'authorizationState', args: [alice.address, a.nonce] }), false);
    const receipt = await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(a), account: RELAYER });
    assert.equal(getAddress(receipt.from), RELAYER.address);
    assert.equal(await balanceOf(node.rpcUrl, moon, alice.address), 60n);
    assert.equal(await balanceOf(node.rpcUrl, moon, bob.address), 40n);
    assert.equal(await read(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'authorizationState', args: [alice.address, a.nonce] }), true);
    // AuthorizationUsed(authorizer indexed, nonce indexed) then Transfer
    const used = receipt.logs.find((l) => l.topics[0] === keccak256(toBytes('AuthorizationUsed(address,bytes32)')));
    assert.ok(used, 'AuthorizationUsed emitted');
    assert.equal(getAddress('0x' + used.topics[1].slice(26)), alice.address);
    assert.equal(used.topics[2], a.nonce);
  });

  test('USDC (TestUSDC) takes the same signatures under its own domain', async () => {
    const alice = holder();
    const bob = holder();
    await mintUsdc(node.rpcUrl, base.usdc, alice.address, 5_000_000n);
    const a = await authorize(base.usdc, 'USD Coin', '2', alice, bob.address, 1_250_000n);
    await send(node.rpcUrl, { address: base.usdc, abi: USDC_ABI, functionName: 'transferWithAuthorization', args: args9(a), account: RELAYER });
    assert.equal(await balanceOf(node.rpcUrl, base.usdc, bob.address), 1_250_000n);
    // signed under the wrong domain version: refused
    const wrong = await authorize(base.usdc, 'USD Coin', '1', alice, bob.address, 1n);
    assert.equal(await revertName(simulate({ address: base.usdc, abi: USDC_ABI, functionName: 'transferWithAuthorization', args: args9(wrong) })), 'EIP3009InvalidSignature');
  });

  test('replay of a used nonce, expired, not yet valid, wrong signer and malleable signatures are refused', async () => {
    const alice = holder();
    const bob = holder();
    const mallory = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [alice.address, 1000n] });
    const call = (a) => simulate({ address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(a) });
    const now = await latestTimestamp(node.rpcUrl);

    // replay
    const a = await authorize(moon, 'Moon', '1', alice, bob.address, 10n);
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(a), account: RELAYER });
    assert.equal(await revertName(call(a)), 'EIP3009AuthorizationUsedOrCanceled');
    // the same nonce with a fresh signature for another amount: still used
    const again = await authorize(moon, 'Moon', '1', alice, bob.address, 11n, { nonce: a.nonce });
    assert.equal(await revertName(call(again)), 'EIP3009AuthorizationUsedOrCanceled');

    // expired (validBefore in the past) and not yet valid (validAfter in the future)
    const expired = await authorize(moon, 'Moon', '1', alice, bob.address, 10n, { validBefore: now - 1n });
    assert.equal(await revertName(call(expired)), 'EIP3009AuthorizationExpired');
    const early = await authorize(moon, 'Moon', '1', alice, bob.address, 10n, { validAfter: now + 3600n, validBefore: now + 7200n });
    assert.equal(await revertName(call(early)), 'EIP3009AuthorizationNotYetValid');

    // wrong signer: mallory signs a transfer out of alice's balance
    const forged = await authorize(moon, 'Moon', '1', alice, mallory.address, 10n, { signerKey: mallory.key });
    assert.equal(await revertName(call(forged)), 'EIP3009InvalidSignature');
    // a valid signature with one field changed afterwards (amount) no longer verifies
    const tampered = { ...(await authorize(moon, 'Moon', '1', alice, bob.address, 10n)) };
    tampered.value = 999n;
    assert.equal(await revertName(call(tampered)), 'EIP3009InvalidSignature');

    // malleable: (r, n - s, v flipped) recovers alice with the raw ecrecover precompile, but the
    // token rejects high-s signatures
    const good = await authorize(moon, 'Moon', '1', alice, bob.address, 10n);
    const mall = { ...good, s: toHex(SECP256K1_N - BigInt(good.s), { size: 32 }), v: good.v === 27 ? 28 : 27 };
    const digest = hashTypedData({
      domain: { name: 'Moon', version: '1', chainId: node.chainId, verifyingContract: moon },
      types: { TransferWithAuthorization: AUTH_TYPES.TransferWithAuthorization },
      primaryType: 'TransferWithAuthorization',
      message: { from: good.from, to: good.to, value: good.value, validAfter: good.validAfter, validBefore: good.validBefore, nonce: good.nonce },
    });
    const ecrecover = await rpc(node.rpcUrl, 'eth_call', [
      {
        to: '0x0000000000000000000000000000000000000001',
        data: encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint8' }, { type: 'bytes32' }, { type: 'bytes32' }], [digest, mall.v, mall.r, mall.s]),
      },
      'latest',
    ]);
    assert.equal(getAddress('0x' + ecrecover.slice(26)), alice.address, 'the malleated signature is valid for raw ecrecover');
    assert.equal(await revertName(call(mall)), 'EIP3009InvalidSignature');
    // v other than 27/28
    assert.equal(await revertName(call({ ...good, v: 0 })), 'EIP3009InvalidSignature');
    // and the original still works: nothing above consumed its nonce
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(good), account: RELAYER });
    assert.equal(await balanceOf(node.rpcUrl, moon, bob.address), 20n);
  });

  test('a refused authorization mined on chain reverts and moves nothing', async () => {
    const alice = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [alice.address, 50n] });
    const now = await latestTimestamp(node.rpcUrl);
    const expired = await authorize(moon, 'Moon', '1', alice, OTHER.address, 10n, { validBefore: now });
    const before = await balanceOf(node.rpcUrl, moon, OTHER.address);
    const receipt = await sendRaw({ address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(expired) });
    assert.equal(receipt.status, 'reverted');
    assert.equal(await balanceOf(node.rpcUrl, moon, alice.address), 50n);
    assert.equal(await balanceOf(node.rpcUrl, moon, OTHER.address), before);
  });
});

describe('receiveWithAuthorization and cancelAuthorization', () => {
  test('receive: only the payee may submit it', async () => {
    const alice = holder();
    const payee = holder();
    await fund(node.rpcUrl, payee.address, 10n ** 18n);
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [alice.address, 30n] });
    const a = await authorize(moon, 'Moon', '1', alice, payee.address, 30n, { kind: 'ReceiveWithAuthorization' });
    assert.equal(
      await revertName(simulate({ address: moon, abi: TOKEN_ABI, functionName: 'receiveWithAuthorization', args: args9(a), account: RELAYER })),
      'EIP3009CallerMustBePayee',
    );
    // a Receive signature is not a Transfer signature
    assert.equal(
      await revertName(simulate({ address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(a) })),
      'EIP3009InvalidSignature',
    );
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'receiveWithAuthorization', args: args9(a), account: payee.key });
    assert.equal(await balanceOf(node.rpcUrl, moon, payee.address), 30n);
  });

  test('cancel: a canceled nonce cannot be used, nor canceled twice; only its authorizer cancels', async () => {
    const alice = holder();
    const bob = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [alice.address, 30n] });
    const a = await authorize(moon, 'Moon', '1', alice, bob.address, 30n);
    const cancelBy = async (key) => {
      const c = await signAuthorization({
        privateKey: key,
        token: moon,
        chainId: node.chainId,
        name: 'Moon',
        version: '1',
        kind: 'CancelAuthorization',
        message: { authorizer: alice.address, nonce: a.nonce },
      });
      return [alice.address, a.nonce, c.v, c.r, c.s];
    };
    const cancel = (args) => ({ address: moon, abi: TOKEN_ABI, functionName: 'cancelAuthorization', args, account: RELAYER });
    assert.equal(await revertName(simulate(cancel(await cancelBy(bob.key)))), 'EIP3009InvalidSignature');
    const receipt = await send(node.rpcUrl, cancel(await cancelBy(alice.key)));
    assert.ok(receipt.logs.some((l) => l.topics[0] === keccak256(toBytes('AuthorizationCanceled(address,bytes32)'))));
    assert.equal(await read(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'authorizationState', args: [alice.address, a.nonce] }), true);
    assert.equal(await revertName(simulate(cancel(await cancelBy(alice.key)))), 'EIP3009AuthorizationUsedOrCanceled');
    assert.equal(
      await revertName(simulate({ address: moon, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(a) })),
      'EIP3009AuthorizationUsedOrCanceled',
    );
    assert.equal(await balanceOf(node.rpcUrl, moon, alice.address), 30n);
  });
});

describe('batches', () => {
  test('batchTransferWithAuthorization settles many holders (several each, any order) in one transaction', async () => {
    const holders = Array.from({ length: 20 }, holder);
    const dest = holder();
    // fund the holders in one batchTransfer
    await send(node.rpcUrl, {
      address: moon,
      abi: TOKEN_ABI,
      functionName: 'batchTransfer',
      args: [holders.map((h) => h.address), holders.map(() => 100n)],
    });
    const auths = [];
    for (let round = 0; round < 5; round++) {
      for (const h of holders) auths.push(await authorize(moon, 'Moon', '1', h, dest.address, BigInt(round + 1)));
    }
    auths.reverse(); // a holder's authorizations need no particular order
    const blockBefore = BigInt(await rpc(node.rpcUrl, 'eth_blockNumber'));
    const receipt = await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransferWithAuthorization', args: [auths], account: RELAYER });
    assert.equal(receipt.blockNumber, blockBefore + 1n, 'one transaction, one block');
    const usedTopic = keccak256(toBytes('AuthorizationUsed(address,bytes32)'));
    assert.equal(receipt.logs.filter((l) => l.topics[0] === usedTopic).length, 100);
    assert.equal(await balanceOf(node.rpcUrl, moon, dest.address), 20n * (1n + 2n + 3n + 4n + 5n));
    for (const h of holders) assert.equal(await balanceOf(node.rpcUrl, moon, h.address), 100n - 15n);
    // gas per authorization, for the settler's batch sizing (printed, not asserted)
    console.log(`# batch of 100 authorizations: ${receipt.gasUsed} gas (${receipt.gasUsed / 100n} each)`);
  });

  test('batchTransferWithAuthorization is atomic: one bad authorization reverts the whole batch', async () => {
    const holders = Array.from({ length: 4 }, holder);
    const dest = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransfer', args: [holders.map((h) => h.address), holders.map(() => 10n)] });
    const good = [];
    for (const h of holders) good.push(await authorize(moon, 'Moon', '1', h, dest.address, 5n));
    const bad = await authorize(moon, 'Moon', '1', holders[0], dest.address, 5n, { signerKey: holders[1].key });
    const overdraft = await authorize(moon, 'Moon', '1', holders[2], dest.address, 11n);
    const call = (auths) => ({ address: moon, abi: TOKEN_ABI, functionName: 'batchTransferWithAuthorization', args: [auths] });

    assert.equal(await revertName(simulate(call([...good.slice(0, 2), bad, ...good.slice(2)]))), 'EIP3009InvalidSignature');
    assert.equal(await revertName(simulate(call([...good, overdraft]))), 'ERC20InsufficientBalance');
    // a duplicate inside one batch is a replay
    assert.equal(await revertName(simulate(call([...good, good[1]]))), 'EIP3009AuthorizationUsedOrCanceled');

    const receipt = await sendRaw(call([...good.slice(0, 3), bad, good[3]]));
    assert.equal(receipt.status, 'reverted');
    assert.equal(await balanceOf(node.rpcUrl, moon, dest.address), 0n);
    for (const a of good) {
      assert.equal(await read(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'authorizationState', args: [a.from, a.nonce] }), false);
    }
    // without the bad one the same authorizations go through
    await send(node.rpcUrl, { ...call(good), account: RELAYER });
    assert.equal(await balanceOf(node.rpcUrl, moon, dest.address), 20n);
  });

  test('batchTransfer pays many from the caller, atomically; lengths must match', async () => {
    const to = Array.from({ length: 30 }, () => holder().address);
    const values = to.map((_, i) => BigInt(i + 1));
    const treasuryBefore = await balanceOf(node.rpcUrl, moon, DEPLOYER.address);
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransfer', args: [to, values] });
    for (const [i, a] of to.entries()) assert.equal(await balanceOf(node.rpcUrl, moon, a), values[i]);
    assert.equal(await balanceOf(node.rpcUrl, moon, DEPLOYER.address), treasuryBefore - values.reduce((x, y) => x + y, 0n));

    const call = (args, account = DEPLOYER) => ({ address: moon, abi: TOKEN_ABI, functionName: 'batchTransfer', args, account });
    assert.equal(await revertName(simulate(call([to, values.slice(1)]))), 'EIP3009LengthMismatch');
    // OTHER holds no MOON: the first transfer fails and the whole call reverts
    assert.equal(await revertName(simulate(call([to.slice(0, 2), [0n, 1n]], OTHER))), 'ERC20InsufficientBalance');
    const poor = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [poor.address, 5n] });
    await fund(node.rpcUrl, poor.address, 10n ** 18n);
    const receipt = await sendRaw(call([[to[0], to[1]], [3n, 3n]], poor.key));
    assert.equal(receipt.status, 'reverted');
    assert.equal(await balanceOf(node.rpcUrl, moon, poor.address), 5n);
    assert.equal(await balanceOf(node.rpcUrl, moon, to[0]), 1n);
  });
});

describe('TokenpadFactory', () => {
  test('the CREATE2 formula matches the examples of EIP-1014', () => {
    const zero32 = '0x' + '00'.repeat(32);
    const code00 = keccak256('0x00');
    assert.equal(create2Address('0x0000000000000000000000000000000000000000', zero32, code00), '0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38');
    assert.equal(create2Address('0xdeadbeef00000000000000000000000000000000', zero32, code00), '0xB928f69Bb1D91Cd65274e3c79d8986362984fDA3');
    assert.equal(
      create2Address('0x00000000000000000000000000000000deadbeef', '0x00000000000000000000000000000000000000000000000000000000cafebabe', keccak256('0xdeadbeef')),
      '0x60f3f640a8508fC6a86d45DF051962668E1e8AC7',
    );
  });

  test("contracts/README.md's address vector is the current build's, and the real one on a fresh anvil", async () => {
    const readme = readFileSync(join(ROOT, 'contracts', 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const m = /factory `(0x[0-9a-fA-F]{40})`.*?deployer `(0x[0-9a-fA-F]{40})`, salt `(0x[0-9a-f]{64})`, creationCodeHash `(0x[0-9a-f]{64})` → token `(0x[0-9a-fA-F]{40})`/.exec(readme);
    assert.ok(m, 'vector found in contracts/README.md');
    const [, factory, deployer, salt, hash, token] = m;
    assert.equal(hash, artifact('TokenpadToken').creationCodeHash, 'README vector is stale: update it');
    assert.equal(tokenAddress(factory, deployer, salt, hash), token);
    assert.equal(base.factory, factory, 'the factory lands at the same address on every fresh anvil');
    assert.equal(await read(node.rpcUrl, { address: base.factory, abi: FACTORY_ABI, functionName: 'predict', args: [deployer, salt] }), token);
  });

  test('deploy lands at predict() and at the CREATE2 formula computed off chain', async () => {
    const creationCodeHash = artifact('TokenpadToken').creationCodeHash;
    assert.equal(creationCodeHash, keccak256(artifact('TokenpadToken').bytecode));
    assert.equal(await read(node.rpcUrl, { address: base.factory, abi: FACTORY_ABI, functionName: 'TOKEN_CREATION_CODE_HASH' }), creationCodeHash);

    const deployer = OTHER; // any account may deploy through the factory
    const salt = keccak256(toBytes('presale-42'));
    const treasury = holder().address;
    const offChain = tokenAddress(base.factory, deployer.address, salt, creationCodeHash);
    const predicted = await read(node.rpcUrl, { address: base.factory, abi: FACTORY_ABI, functionName: 'predict', args: [deployer.address, salt] });
    assert.equal(predicted, offChain);
    assert.equal(await rpc(node.rpcUrl, 'eth_getCode', [offChain, 'latest']), '0x');

    const receipt = await send(node.rpcUrl, {
      address: base.factory,
      abi: FACTORY_ABI,
      functionName: 'deploy',
      args: [salt, 'Presale Token', 'PST', 777n * 10n ** 18n, treasury],
      account: deployer,
    });
    const ev = receipt.logs.find((l) => l.topics[0] === keccak256(toBytes('TokenDeployed(address,bytes32,address)')));
    assert.ok(ev, 'TokenDeployed emitted');
    assert.equal(getAddress('0x' + ev.topics[1].slice(26)), deployer.address);
    assert.equal(ev.topics[2], salt);
    assert.equal(getAddress('0x' + ev.data.slice(26)), offChain);
    assert.notEqual(await rpc(node.rpcUrl, 'eth_getCode', [offChain, 'latest']), '0x');

    const r = (fn) => read(node.rpcUrl, { address: offChain, abi: TOKEN_ABI, functionName: fn });
    assert.equal(await r('name'), 'Presale Token');
    assert.equal(await r('symbol'), 'PST');
    assert.equal(await r('decimals'), 18);
    assert.equal(await r('totalSupply'), 777n * 10n ** 18n);
    assert.equal(await balanceOf(node.rpcUrl, offChain, treasury), 777n * 10n ** 18n);

    // the same salt from another deployer is another address; the same (deployer, salt) again reverts
    assert.notEqual(tokenAddress(base.factory, DEPLOYER.address, salt), offChain);
    const again = { address: base.factory, abi: FACTORY_ABI, functionName: 'deploy', args: [salt, 'X', 'X', 1n, treasury], account: deployer };
    assert.equal(await revertName(simulate(again)), 'TokenpadFactoryAlreadyDeployed');
    assert.equal((await sendRaw(again)).status, 'reverted');
  });

  test("the token's EIP-712 domain uses the name given at initialize", async () => {
    const salt = keccak256(toBytes('domain'));
    const treasury = holder();
    const { token } = await deployToken(node.rpcUrl, base.factory, { salt, name: 'Zeta Coin', symbol: 'ZETA', supply: 10n, treasury: treasury.address });
    const a = await authorize(token, 'Zeta Coin', '1', treasury, OTHER.address, 4n);
    await send(node.rpcUrl, { address: token, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', args: args9(a), account: RELAYER });
    assert.equal(await balanceOf(node.rpcUrl, token, OTHER.address), 4n);
  });

  test('initialize runs once, only by the creator', async () => {
    // through the factory: the factory is the creator, so nobody else may call it
    const call = (address, args, account) => ({ address, abi: TOKEN_ABI, functionName: 'initialize', args, account });
    assert.equal(await revertName(simulate(call(moon, ['Evil', 'EVL', 1n, OTHER.address], OTHER))), 'TokenpadTokenUnauthorizedInitializer');
    assert.equal(await revertName(simulate(call(moon, ['Evil', 'EVL', 1n, DEPLOYER.address], DEPLOYER))), 'TokenpadTokenUnauthorizedInitializer');

    // deployed directly by an account: that account may initialize, once
    const direct = await deployArtifact(node.rpcUrl, 'TokenpadToken', OTHER);
    assert.equal(await revertName(simulate(call(direct, ['A', 'A', 1n, OTHER.address], DEPLOYER))), 'TokenpadTokenUnauthorizedInitializer');
    await send(node.rpcUrl, call(direct, ['A', 'A', 5n, OTHER.address], OTHER));
    assert.equal(await revertName(simulate(call(direct, ['B', 'B', 5n, OTHER.address], OTHER))), 'TokenpadTokenAlreadyInitialized');
    assert.equal(await read(node.rpcUrl, { address: direct, abi: TOKEN_ABI, functionName: 'name' }), 'A');
    assert.equal(await read(node.rpcUrl, { address: direct, abi: TOKEN_ABI, functionName: 'totalSupply' }), 5n);
  });
});

describe('TestUSDC', () => {
  test('anyone can mint (test token)', async () => {
    const someone = holder();
    await fund(node.rpcUrl, someone.address, 10n ** 17n);
    const to = holder().address;
    const supply = await read(node.rpcUrl, { address: base.usdc, abi: USDC_ABI, functionName: 'totalSupply' });
    await mintUsdc(node.rpcUrl, base.usdc, to, 123_456_789n, someone.key);
    assert.equal(await balanceOf(node.rpcUrl, base.usdc, to), 123_456_789n);
    assert.equal(await read(node.rpcUrl, { address: base.usdc, abi: USDC_ABI, functionName: 'totalSupply' }), supply + 123_456_789n);
  });
});
