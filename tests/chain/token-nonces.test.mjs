// The token's authorization states on a real node (anvil): a bitmap per authorizer (a nonce's
// high 248 bits pick a word, its low 8 bits a bit), so a holder's consecutive nonces share a
// storage slot, while TestUSDC keeps USDC's flag per nonce; and the packed batch calls, which do
// what the plain ones do in fewer bytes, without AuthorizationUsed events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, toBytes, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  DEPLOYER,
  DEV_ACCOUNTS,
  artifact,
  balanceOf,
  clients,
  deployBase,
  deployToken,
  mintUsdc,
  read,
  send,
  signAuthorization,
  startAnvil,
} from './anvil.mjs';

const RELAYER = DEV_ACCOUNTS[1];
const TOKEN_ABI = artifact('TokenpadToken').abi;
const USED_TOPIC = keccak256(toBytes('AuthorizationUsed(address,bytes32)'));
const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'));
const VALID_BEFORE = 2n ** 64n - 1n; // what the settler signs
const word = (n) => toHex(BigInt(n), { size: 32 });

let node;
let base;
let moon;

const holder = () => {
  const key = generatePrivateKey();
  return { key, address: privateKeyToAccount(key).address };
};

/** A signed TransferWithAuthorization of `token` (domain name, version) from `from`, valid from 0. */
async function authorize(token, [name, version], from, to, value, nonce) {
  const message = { from: from.address, to, value: BigInt(value), validAfter: 0n, validBefore: VALID_BEFORE, nonce };
  const { v, r, s } = await signAuthorization({ privateKey: from.key, token, chainId: node.chainId, name, version, message });
  return { ...message, v, r, s };
}

const packed = (a) => ({
  fromAndValue: (BigInt(a.from) << 96n) | a.value,
  toValidBeforeAndV: (BigInt(a.to) << 96n) | (a.validBefore << 8n) | BigInt(a.v),
  nonce: a.nonce,
  r: a.r,
  s: a.s,
});

const state = (token, who, nonce) => read(node.rpcUrl, { address: token, abi: TOKEN_ABI, functionName: 'authorizationState', args: [who, nonce] });

/** The custom error an eth_call of the call reverts with. */
async function revertName(call) {
  const { publicClient } = await clients(node.rpcUrl, RELAYER);
  try {
    await publicClient.simulateContract({ ...call, account: RELAYER });
  } catch (e) {
    for (let c = e; c; c = c.cause) if (c.data?.errorName) return c.data.errorName;
    throw e;
  }
  assert.fail('expected a revert');
}

before(async () => {
  node = await startAnvil();
  base = await deployBase(node.rpcUrl);
  ({ token: moon } = await deployToken(node.rpcUrl, base.factory, {
    salt: keccak256(toBytes('nonces')), name: 'Moon', symbol: 'MOON', supply: 10n ** 24n, treasury: DEPLOYER.address,
  }));
});

after(async () => {
  await node?.stop();
});

describe('authorization states', () => {
  test("a holder's consecutive nonces share a slot on the token (the second costs at least 15,000 gas less), not on TestUSDC", async () => {
    const alice = holder();
    const bob = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransfer', args: [[alice.address, bob.address], [10n ** 20n, 1n]] });
    await mintUsdc(node.rpcUrl, base.usdc, alice.address, 10n ** 9n);
    await mintUsdc(node.rpcUrl, base.usdc, bob.address, 1n);
    const gasOf = async (token, domain, nonce) => {
      const a = await authorize(token, domain, alice, bob.address, 1n, nonce);
      const receipt = await send(node.rpcUrl, {
        address: token, abi: TOKEN_ABI, functionName: 'transferWithAuthorization', account: RELAYER,
        args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.v, a.r, a.s],
      });
      assert.ok(await state(token, alice.address, nonce), 'used');
      return Number(receipt.gasUsed);
    };
    const token = [await gasOf(moon, ['Moon', '1'], word(0)), await gasOf(moon, ['Moon', '1'], word(1))];
    const usdc = [await gasOf(base.usdc, ['USD Coin', '2'], word(0)), await gasOf(base.usdc, ['USD Coin', '2'], word(1))];
    console.log(`# transferWithAuthorization, nonce 0 then 1: token ${token.join(', ')}; TestUSDC ${usdc.join(', ')}`);
    assert.ok(token[0] - token[1] >= 15_000, `the token's second nonce reuses the slot (${token})`);
    assert.ok(Math.abs(usdc[0] - usdc[1]) < 1_000, `USDC's second nonce takes a slot of its own, as on Circle's USDC (${usdc})`);
    // nonce 255 is the last of word 0, 256 the first of word 1
    assert.equal(await state(moon, alice.address, word(2)), false);
    assert.equal(await state(moon, alice.address, word(256)), false);
    assert.equal(await state(moon, bob.address, word(0)), false, "another authorizer's nonce 0 is free");
  });

  test('cancelAuthorization marks exactly its bit; the neighbours in its word and the next word stay free', async () => {
    const carol = holder();
    const nonce = word((7n << 8n) | 255n); // word 7, its last bit
    const digest = { name: 'Moon', version: '1', chainId: node.chainId, verifyingContract: moon };
    const signature = await privateKeyToAccount(carol.key).signTypedData({
      domain: digest,
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: carol.address, nonce },
    });
    const r = `0x${signature.slice(2, 66)}`;
    const s = `0x${signature.slice(66, 130)}`;
    const v = Number(`0x${signature.slice(130, 132)}`);
    const receipt = await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'cancelAuthorization', args: [carol.address, nonce, v, r, s], account: RELAYER });
    assert.equal(receipt.status, 'success');
    assert.equal(await state(moon, carol.address, nonce), true);
    for (const n of [(7n << 8n) | 254n, 7n << 8n, 8n << 8n, (8n << 8n) | 255n, (6n << 8n) | 255n]) {
      assert.equal(await state(moon, carol.address, word(n)), false, `nonce ${n} stays free`);
    }
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'transfer', args: [carol.address, 5n] });
    const a = await authorize(moon, ['Moon', '1'], carol, DEPLOYER.address, 1n, nonce);
    assert.equal(await revertName({ address: moon, abi: TOKEN_ABI, functionName: 'batchTransferWithAuthorizationPacked', args: [[packed(a)]] }), 'EIP3009AuthorizationUsedOrCanceled');
  });
});

describe('packed batch calls', () => {
  test('batchTransferPacked pays as batchTransfer does, one word per recipient; the total must be covered', async () => {
    const to = Array.from({ length: 5 }, () => holder().address);
    const values = to.map((_, i) => 10n ** 18n * BigInt(i + 1));
    const treasury = await balanceOf(node.rpcUrl, moon, DEPLOYER.address);
    const receipt = await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransferPacked', args: [to.map((a, i) => (BigInt(a) << 96n) | values[i])] });
    const transfers = receipt.logs.filter((l) => l.topics[0] === TRANSFER_TOPIC);
    assert.equal(transfers.length, 5);
    for (const [i, a] of to.entries()) assert.equal(await balanceOf(node.rpcUrl, moon, a), values[i]);
    assert.equal(await balanceOf(node.rpcUrl, moon, DEPLOYER.address), treasury - values.reduce((x, y) => x + y, 0n));
    const poor = holder();
    assert.equal(
      await revertName({ address: moon, abi: TOKEN_ABI, functionName: 'batchTransferPacked', args: [[(BigInt(to[0]) << 96n) | 1n]] }),
      'ERC20InsufficientBalance',
      'the relayer holds no MOON',
    );
    assert.equal(
      await revertName({ address: moon, abi: TOKEN_ABI, functionName: 'batchTransferPacked', args: [[(BigInt(poor.address) << 96n) | 0n, 0n]] }),
      'ERC20InvalidReceiver',
      'a zero recipient',
    );
  });

  test('batchTransferWithAuthorizationPacked settles what the plain batch would, with Transfer events only', async () => {
    const holders = Array.from({ length: 4 }, holder);
    const dest = holder();
    await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransfer', args: [holders.map((h) => h.address), holders.map(() => 100n)] });
    const auths = [];
    for (let n = 0; n < 3; n++) for (const h of holders) auths.push(await authorize(moon, ['Moon', '1'], h, dest.address, BigInt(n + 1), word(n)));
    const receipt = await send(node.rpcUrl, { address: moon, abi: TOKEN_ABI, functionName: 'batchTransferWithAuthorizationPacked', args: [auths.map(packed)], account: RELAYER });
    assert.equal(receipt.logs.filter((l) => l.topics[0] === USED_TOPIC).length, 0, 'no AuthorizationUsed');
    assert.equal(receipt.logs.filter((l) => l.topics[0] === TRANSFER_TOPIC).length, auths.length);
    assert.equal(await balanceOf(node.rpcUrl, moon, dest.address), 4n * (1n + 2n + 3n));
    for (const a of auths) assert.equal(await state(moon, a.from, a.nonce), true);
    // replayed, spoiled or expired: the plain batch's errors
    const call = (list) => ({ address: moon, abi: TOKEN_ABI, functionName: 'batchTransferWithAuthorizationPacked', args: [list] });
    assert.equal(await revertName(call([packed(auths[0])])), 'EIP3009AuthorizationUsedOrCanceled');
    const fresh = await authorize(moon, ['Moon', '1'], holders[0], dest.address, 1n, word(3));
    assert.equal(await revertName(call([{ ...packed(fresh), fromAndValue: packed(fresh).fromAndValue + 1n }])), 'EIP3009InvalidSignature');
    assert.equal(await revertName(call([{ ...packed(fresh), toValidBeforeAndV: (BigInt(fresh.to) << 96n) | (1n << 8n) | BigInt(fresh.v) }])), 'EIP3009AuthorizationExpired');
    assert.equal(await state(moon, holders[0].address, word(3)), false, 'nothing spent by the refusals');
  });
});
