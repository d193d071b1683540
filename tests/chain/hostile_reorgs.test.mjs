// Issue 40, finding 5: every reorganization up to the finality depth is followed, of every kind
// of transaction, and a node that comes back without its last blocks is one more. The worker
// runs with CHAIN_FINALITY=6 (the settler re-checks each receipt's block hash until it is 6
// blocks deep, and acts on a revert only then); anvil_reorg [depth, []] replaces the last
// `depth` blocks with empty ones, so what they held is gone from the chain and must be sent
// again. The deposit scan waits CHAIN_CONFIRMATIONS=2 blocks (as on Base Sepolia), so its
// checkpoints trail the head: a reorg of the newest blocks must be seen from the receipts'
// own block hashes. Each case ends with ledger == chain, no relayer halted (its next nonce the chain's:
// no gap), the next new movement settling, and the holders' histories naming transactions the
// chain holds. The last cases are what waits behind a transaction of ours in a block not final
// yet: a revert (ours to repair, acted on once final) or a success that moved nothing, and what
// waits behind those in turn (a buyer's transfer of what a held buy brings, a refund of a held
// purchase).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress, keccak256, toHex } from 'viem';
import { artifact, balanceOf, read } from './anvil.mjs';
import { E18, E6, OUTSIDER, eventually, finalityWorld, fundedByNothing, marketToken, narrowPositions, units } from './hostile.mjs';

const FINALITY = 6;
let h;
let c;
finalityWorld(FINALITY, (world) => {
  h = world;
  c = world.c;
});

const onChain = (token, owner) => balanceOf(h.rpcUrl, token, owner);
const distribute = async (M, T, userId, amount) => c.ok(await c.call('POST', `/token/${T.address}/distribute`, {
  key: M.secretKey, body: { sendToId: userId, amount },
}));
/**
 * While the service catches up after a reorg the chain goes on: a block per try. A timeout
 * also says where `M`'s relayer stands (halted, stuck behind a nonce gap).
 */
async function followed(M, what, check, timeoutMs = 30_000) {
  try {
    return await eventually(what, check, { timeoutMs, every: 300, between: () => h.mine(1) });
  } catch (e) {
    const v = await h.view(M);
    throw new assert.AssertionError({ message: `${e.message}; the relayer: error ${JSON.stringify(v.relayer?.error ?? null)}, next nonce ${v.relayer?.nextNonce}, the chain's ${await h.nonce(M)}, ` +
      `${v.transactions.length} transaction(s) open ${JSON.stringify(v.transactions.map((t) => [t.nonce, t.state]))}, ${v.openMovements} movement(s) open` });
  }
}

/** `userId`'s records of `type`: every one confirmed, in a block the chain holds (its receipt's block number the record's). */
async function confirmedOnChain(M, userId, type, count, receipts = new Map()) {
  const recs = (await h.history(M, userId)).filter((r) => r.type === type);
  assert.equal(recs.length, count, `${userId}'s ${type} records: ${JSON.stringify(recs)}`);
  for (const r of recs) {
    assert.equal(r.chainStatus, 'confirmed', `${userId}'s ${type}: ${JSON.stringify(r)}`);
    if (!receipts.has(r.transactionHash)) receipts.set(r.transactionHash, await h.canonicalReceipt(r.transactionHash, `${userId}'s ${type} ${r.id}`));
    const receipt = receipts.get(r.transactionHash);
    assert.equal(receipt.status, '0x1', `${r.transactionHash} reverted`);
    assert.equal(Number(receipt.blockNumber), Number(r.blockNumber), `${userId}'s ${type} record names block ${r.blockNumber}, its transaction is in ${Number(receipt.blockNumber)}`);
  }
  return recs;
}

/** The hashes of every transaction in blocks from..to (the node's). */
async function txsIn(from, to) {
  const out = [];
  for (let n = from; n <= to; n++) out.push(...(await h.node('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).transactions);
  return out;
}

/** The chain drops its last `depth` blocks: checks they held `hashes` and that these are gone. */
async function reorgAway(depth, hashes) {
  assert.ok(depth >= 1 && depth < FINALITY, `the setup: a reorg of ${depth} blocks, under the finality depth ${FINALITY}`);
  const head = await h.head();
  const inThem = await txsIn(head - depth + 1, head);
  for (const x of hashes) assert.ok(inThem.includes(x), `the setup: ${x} is in the last ${depth} blocks`);
  await h.reorg(depth);
  for (const x of hashes) assert.equal(await h.node('eth_getTransactionReceipt', [x]), null, `the setup: ${x} is gone from the chain`);
}

/** After the last movement: finality passes, every movement stays where it is, and the merchant ends clean. */
async function finalAndClean(M) {
  await h.mine(FINALITY + 1);
  return h.endsClean(M);
}

test('finding 5: a reorg of the newest block (or two) right after a receipt is seen: three distributes are sent again and end confirmed in a block that holds them', async () => {
  const M = await c.newMerchant('One block');
  const T = await c.newToken(M, { name: 'Reorged', symbol: 'ROG', canDistribute: true });
  const users = ['r1', 'r2', 'r3'];
  const addresses = {};
  for (const u of users) addresses[u] = await h.holder(M, u);
  await c.settled(M);
  await Promise.all(users.map((u) => distribute(M, T, u, 5)));
  const first = await eventually('three distributes confirmed', async () => {
    const recs = [];
    for (const u of users) recs.push(...await confirmedOnChain(M, u, 'distribute', 1));
    return recs;
  });
  // Mostly one block; two when a settle round ran between the requests (a loaded machine).
  const blocks = first.map((r) => Number(r.blockNumber));
  const head = await h.head();
  assert.equal(Math.max(...blocks), head, 'the setup: the distributes are in the newest blocks, just received');
  await reorgAway(head - Math.min(...blocks) + 1, [...new Set(first.map((r) => r.transactionHash))]);

  await followed(M, 'the distributes confirmed again in the new chain', async () => {
    for (const u of users) await confirmedOnChain(M, u, 'distribute', 1);
  });
  for (const u of users) assert.equal(await onChain(T.address, addresses[u]), 5n * E18, `${u}'s balance on chain`);
  await finalAndClean(M);
  for (const u of users) await confirmedOnChain(M, u, 'distribute', 1);
  // The relayer's next movement settles too.
  await distribute(M, T, 'r1', 1);
  await eventually('the next distribute confirmed', () => confirmedOnChain(M, 'r1', 'distribute', 2));
  await finalAndClean(M);
});

test("finding 5: a reorg that drops holders' own transfers sends the same signed bytes again: each holder's nonces 0 and 1 are used once, on the new chain", async () => {
  const M = await c.newMerchant('Signed reorged');
  const T = await c.newToken(M, { name: 'Signed', symbol: 'SIG', canDistribute: true });
  const users = ['s1', 's2'];
  const addresses = {};
  for (const u of users) addresses[u] = await h.holder(M, u);
  await Promise.all(users.map((u) => distribute(M, T, u, 10)));
  await c.settled(M);
  const from = (await h.head()) + 1;
  for (const amount of [1, 2]) {
    await Promise.all(users.map(async (u) => c.ok(await c.call('POST', `/holder/${u}/withdraw`, {
      key: M.secretKey, body: { tokenAddress: T.address, amount, toAddress: OUTSIDER.address },
    }))));
  }
  const before = {};
  await eventually('the withdrawals confirmed', async () => {
    for (const u of users) before[u] = (await confirmedOnChain(M, u, 'withdraw', 2)).map((r) => r.transactionHash);
  });
  await c.settled(M);
  const used = (u, n) => read(h.rpcUrl, { address: T.address, abi: artifact('TokenpadToken').abi, functionName: 'authorizationState', args: [addresses[u], toHex(n, { size: 32 })] });
  for (const u of users) assert.deepEqual([await used(u, 0), await used(u, 1), await used(u, 2)], [true, true, false], `the setup: ${u} signed nonces 0 and 1`);
  const ours = [...new Set(Object.values(before).flat())];
  await reorgAway((await h.head()) - from + 1, ours);
  for (const u of users) assert.equal(await used(u, 0), false, `the setup: ${u}'s nonce 0 is free again on the new chain`);

  await followed(M, 'the withdrawals mined again', async () => {
    for (const u of users) {
      const again = (await confirmedOnChain(M, u, 'withdraw', 2)).map((r) => r.transactionHash);
      assert.deepEqual(again, before[u], `${u}'s withdrawals: the same transactions (the same signed bytes)`);
      assert.equal(await onChain(T.address, addresses[u]), 7n * E18, `${u}'s balance on chain`);
    }
  });
  await finalAndClean(M);
  for (const u of users) assert.deepEqual([await used(u, 0), await used(u, 1), await used(u, 2)], [true, true, false], `${u}'s nonces 0 and 1, once each`);
  assert.equal(await onChain(T.address, OUTSIDER.address), 6n * E18, 'each withdrawal once');
  for (const u of users) await h.noReversal(M, u);
});

test('finding 5: a reorg 3 blocks deep drops a pool opening, a swap and a movement: each is sent again and mined, and the next movement settles', async () => {
  const M = await c.newMerchant('Deep');
  const T = await c.newToken(M, { name: 'Deep token', symbol: 'DEEP', totalSupply: 1_000_000, canLP: true, canDistribute: true });
  const buyer = await h.holder(M, 'buyer', 50);
  const rx = await h.holder(M, 'rx');
  await c.settled(M);
  const from = (await h.head()) + 1;
  const nonceBefore = await h.nonce(M);

  c.ok(await c.call('POST', `/token/${T.address}/liquidity`, { key: M.secretKey, body: { initialStartingPrice: '0.01', amount: '10000' } }), 201);
  await eventually('the pool open', async () => {
    assert.equal(c.ok(await c.call('GET', `/token/${T.address}`, { key: M.secretKey })).pool?.status, 'open');
  });
  c.ok(await c.call('POST', '/holder/buyer/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 5 } }));
  await eventually('the buy confirmed', () => confirmedOnChain(M, 'buyer', 'buy', 2));
  await distribute(M, T, 'rx', 3);
  await eventually('the distribute confirmed', () => confirmedOnChain(M, 'rx', 'distribute', 1));
  await c.settled(M);
  const ours = await txsIn(from, await h.head());
  assert.equal(ours.length, 3, `the setup: three transactions (opening, swap, distribute): ${ours}`);
  const bought = await onChain(T.address, buyer);
  assert.ok(bought > 0n);

  await reorgAway((await h.head()) - from + 1, ours);
  assert.equal(await h.pool(T.address), null, 'the setup: the pool is gone from the chain');

  await followed(M, 'the opening, the swap and the distribute mined again', async () => {
    const pool = await h.pool(T.address);
    assert.ok(pool && pool.sqrtPriceX96 > 0n, 'the pool exists again');
    await confirmedOnChain(M, 'buyer', 'buy', 2);
    await confirmedOnChain(M, 'rx', 'distribute', 1);
    assert.equal(await onChain(T.address, buyer), bought, 'the buyer holds its tokens on chain again');
    assert.equal(await onChain(T.address, rx), 3n * E18, 'rx holds its tokens on chain again');
  });
  assert.ok(await h.nonce(M) >= nonceBefore + 3, 'the relayer\'s three transactions are in the chain again');
  await finalAndClean(M);
  await distribute(M, T, 'rx', 1);
  await eventually('the next distribute confirmed', () => confirmedOnChain(M, 'rx', 'distribute', 2));
  assert.equal(await onChain(T.address, rx), 4n * E18);
  await finalAndClean(M);
});

test('finding 5: reorgs that drop a presale\'s lock batch and later its release: both are sent again and mined, and the buyers end holding their shares', async () => {
  const M = await c.newMerchant('Locks reorged');
  const buyers = { a: await h.holder(M, 'a', 10), b: await h.holder(M, 'b', 10) };
  const p = await h.presale(M, (await h.createPresale(M, { targetUsdcAmount: 20, lockDuration: 1 })).id);
  for (const u of Object.keys(buyers)) await h.buy(M, u, p.id, 10);
  const done = await h.presaleOutcome(M, p.id);
  assert.equal(done.completionState.step, 'completed', JSON.stringify(done.completionState));
  const token = done.tokenDeploymentInfo.tokenAddress;
  const bought = BigInt(done.tokenDeploymentInfo.amountTokensBought);
  await c.settled(M);
  await h.assertLocked(token, buyers, bought);
  const [alloc] = await confirmedOnChain(M, 'a', 'presale_allocation', 1);

  // The lock batch, 3 blocks deep, dropped.
  await h.mine(2);
  await reorgAway((await h.head()) - Number(alloc.blockNumber) + 1, [alloc.transactionHash]);
  assert.equal(await h.lockerBalance(token), 0n, 'the setup: no lock on chain');
  await followed(M, 'the locks on chain again', async () => {
    await h.assertLocked(token, buyers, bought);
    for (const u of Object.keys(buyers)) await confirmedOnChain(M, u, 'presale_allocation', 1);
  });
  await finalAndClean(M);

  // The release, 3 blocks deep, dropped.
  await c.advance(86_400 + 60);
  const unlocks = await eventually('the releases confirmed', async () => {
    const recs = [];
    for (const u of Object.keys(buyers)) recs.push(...await confirmedOnChain(M, u, 'unlock', 1));
    return recs;
  });
  await c.settled(M);
  const shares = {};
  for (const [u, a] of Object.entries(buyers)) {
    shares[u] = await onChain(token, a);
    assert.ok(shares[u] > 0n, `${u} holds its share after the release`);
  }
  await h.mine(2);
  const released = [...new Set(unlocks.map((r) => r.transactionHash))];
  await reorgAway((await h.head()) - Math.min(...unlocks.map((r) => Number(r.blockNumber))) + 1, released);
  assert.equal(await h.lockerBalance(token), bought, 'the setup: the shares are back in the lock contract');
  await followed(M, 'the releases mined again', async () => {
    for (const [u, a] of Object.entries(buyers)) {
      await confirmedOnChain(M, u, 'unlock', 1);
      assert.equal(await onChain(token, a), shares[u], `${u} holds its share on chain again`);
    }
    assert.equal(await h.lockerBalance(token), 0n, 'the lock contract holds none of it');
    const ev = await h.lockerEvents('Released', token);
    for (const a of Object.values(buyers)) assert.ok(ev.some((e) => getAddress(e.beneficiary) === getAddress(a)), `a Released event for ${a}`);
  });
  await finalAndClean(M);
  // The next movement: a buyer takes its tokens out.
  c.ok(await c.call('POST', '/holder/a/withdraw', { key: M.secretKey, body: { tokenAddress: token, amount: 1, toAddress: OUTSIDER.address } }));
  await eventually('the withdrawal confirmed', () => confirmedOnChain(M, 'a', 'withdraw', 1));
  assert.equal(await onChain(token, OUTSIDER.address), E18);
  await finalAndClean(M);
});

test('finding 5: a node that restarts without its last blocks: every movement ends confirmed on the new chain, and the relayer goes on', async () => {
  const M = await c.newMerchant('Rollback');
  const T = await c.newToken(M, { name: 'Rolled', symbol: 'ROLL', canDistribute: true });
  const users = Array.from({ length: 20 }, (_, i) => `n${i}`);
  const addresses = {};
  for (const u of users) addresses[u] = await h.holder(M, u);
  await distribute(M, T, 'n0', 1);
  await c.settled(M);
  // The node's last state on disk; then 100 distributes settle in the one block it will forget.
  const dumpedAt = await h.dumpState();
  await h.node('evm_setAutomine', [false]);
  try {
    for (let round = 0; round < 5; round++) await Promise.all(users.map((u) => distribute(M, T, u, 1)));
    await eventually('the 100 distributes sent', async () => {
      const v = await h.view(M);
      assert.ok(v.transactions.every((t) => t.state === 'sent'), JSON.stringify(v.transactions));
      assert.equal(v.transactions.reduce((n, t) => n + t.movements, 0), 100, JSON.stringify(v.transactions));
    });
    await h.mine(1);
  } finally {
    await h.node('evm_setAutomine', [true]);
  }
  await eventually('100 distributes confirmed', async () => {
    const receipts = new Map();
    for (const u of users) await confirmedOnChain(M, u, 'distribute', u === 'n0' ? 6 : 5, receipts);
  });
  await c.settled(M);
  const lost = (await h.head()) - dumpedAt;
  assert.equal(lost, 1, 'the setup: one block to lose, with all 100 in it');

  await h.restartNode(); // kill -9, then back from the state file on the same port
  assert.equal(await h.head(), dumpedAt, 'the setup: the node came back without its last blocks');
  assert.equal(await onChain(T.address, addresses.n1), 0n, 'the setup: the chain has none of the 100');

  await followed(M, 'every distribute confirmed on the new chain', async () => {
    const receipts = new Map();
    for (const u of users) {
      await confirmedOnChain(M, u, 'distribute', u === 'n0' ? 6 : 5, receipts);
      assert.equal(await onChain(T.address, addresses[u]), (u === 'n0' ? 6n : 5n) * E18, `${u}'s balance on chain`);
    }
  }, 45_000);
  await finalAndClean(M);
  await distribute(M, T, 'n1', 1);
  await eventually('the next distribute confirmed', () => confirmedOnChain(M, 'n1', 'distribute', 6));
  assert.equal(units((await h.history(M, 'n1'))[0].amount), E18);
  await finalAndClean(M);
});

test('hostile seed 10412: a reorg drops an outsider\'s sell into a drained pool and a buy topped up out of it: the pool ends as the chain\'s', async () => {
  const M = await c.newMerchant('Topped up');
  const T = await c.newToken(M, { name: 'Topped', symbol: 'TOPS', totalSupply: 1_000_000, canLP: true });
  await h.holder(M, 'buyer', 1_000);
  c.ok(await c.call('POST', `/token/${T.address}/liquidity`, { key: M.secretKey, body: { initialStartingPrice: '0.01', amount: '10000' } }), 201);
  await eventually('the pool open', async () => {
    assert.equal(c.ok(await c.call('GET', `/token/${T.address}`, { key: M.secretKey })).pool?.status, 'open');
  });
  await c.settled(M);
  const pool = (await h.pool(T.address)).address;
  // The outsider all but drains the pool (its 10,000 tokens sit from 0.01 USDC up): about one
  // token is left. The ledger follows that trade before anything else happens.
  await h.outsiderSwap(T.address, { buy: true, usdc: 1_000_000n * E6 });
  await h.mine(2);
  await h.scannedTo(M);
  const drained = await onChain(T.address, pool);
  const from = (await h.head()) + 1;
  // It sells 100 back, and the ledger follows that too (the scan waits 2 blocks).
  await h.outsiderSwap(T.address, { buy: false, tokens: 100n * E18 });
  await h.mine(2);
  await h.scannedTo(M);
  // The buyer's buy, bounded at half its quote: the ledger books that half, and tops the buyer
  // up to what the swap gave at its receipt, out of the tokens the outsider sold back.
  c.ok(await c.call('POST', '/holder/buyer/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 1_000, slippageBps: 5_000 } }));
  const [tokenLeg] = (await eventually('the buy confirmed', () => confirmedOnChain(M, 'buyer', 'buy', 2))).filter((r) => r.tokenAddress.toLowerCase() === T.address.toLowerCase());
  const bought = units(tokenLeg.amount);
  assert.ok(bought / 2n > drained, `the setup: the top-up (about ${bought / 2n}) is more than the drained pool held (${drained})`);
  const ours = (await txsIn(from, await h.head())).length;
  assert.ok(ours >= 2, 'the setup: the sell and the buy are in the blocks to drop');

  // Both blocks go. The rewind undoes the followed sell first and cannot take all of it back
  // from the pool (the top-up was paid out of it), so the pool owes the rest; the top-up then
  // taken back from the buyer pays that debt. On the new chain the buy finds the drained pool
  // and is refused (it cannot get its bound), and is undone.
  await reorgAway((await h.head()) - from + 1, []);
  await followed(M, 'the buy refused on the new chain, and undone', async () => {
    const buys = (await h.history(M, 'buyer')).filter((x) => x.type === 'buy');
    assert.ok(buys.length === 2 && buys.every((x) => x.chainStatus === 'failed'), JSON.stringify(buys));
  }, 45_000);
  await finalAndClean(M); // reconcile: every balance, and the pool's reserves as the chain's
  assert.equal(await onChain(T.address, pool), drained, 'the chain\'s pool holds what the drain left');
});

test('hostile seed 12594: a distribute mined while its token had no code goes again once final, and the withdraw that spends it waits behind it instead of reverting', async () => {
  const M = await c.newMerchant('Codeless');
  const T = await c.newToken(M, { name: 'Codeless', symbol: 'NOCODE', canDistribute: true });
  await h.holder(M, 'ann');
  await c.settled(M);
  const code = await h.node('eth_getCode', [T.address, 'latest']);
  // The distribute goes out while the token has code (the settler checks first); the proxy
  // keeps it from the node until the code is gone, as when a reorganization dropped the
  // deployment (the simulator's history).
  const token = T.address.toLowerCase();
  const sends = h.holdSends(artifact('TokenpadToken').abi, ({ tx }) => tx.to?.toLowerCase() === token);
  await distribute(M, T, 'ann', 5);
  await eventually('the distribute sent', () => assert.equal(sends.held.length, 1));
  const from = (await h.head()) + 1;
  await h.node('anvil_setCode', [T.address, '0x']);
  try {
    const [hash] = await sends.release(); // mined (automine: a moment later) into an address without code
    const r = await eventually('the distribute mined', () => h.canonicalReceipt(hash, 'the distribute'));
    assert.equal(r.status, '0x1', 'the setup: a call to an address without code succeeds');
    assert.equal(r.logs.length, 0, 'the setup: and moves nothing');
  } finally {
    await h.node('anvil_setCode', [T.address, code]);
  }
  await eventually('the distribute mined, moving nothing: it waits for finality to go again', async () => {
    const v = await h.view(M);
    assert.deepEqual(v.transactions, [], JSON.stringify(v));
    assert.equal(v.openMovements, 1, JSON.stringify(v));
  });
  // The ledger booked the distribute; ann withdraws it. Sent now it would revert for want of
  // the tokens (a transaction's gas, and an attempt of ann's, spent on a failure of ours).
  c.ok(await c.call('POST', '/holder/ann/withdraw', { key: M.secretKey, body: { tokenAddress: T.address, amount: 5, toAddress: OUTSIDER.address } }));
  await eventually('the withdraw waits behind the distribute', async () => {
    const v = await h.view(M);
    assert.equal(v.openMovements, 2, JSON.stringify(v));
    assert.ok(v.waiting.some((w) => w.kind === 'finality'), JSON.stringify(v.waiting));
  });
  await followed(M, 'both confirmed once the distribute\'s receipt is final', async () => {
    await confirmedOnChain(M, 'ann', 'distribute', 1);
    await confirmedOnChain(M, 'ann', 'withdraw', 1);
  }, 45_000);
  for (const x of await txsIn(from, await h.head())) {
    assert.equal((await h.canonicalReceipt(x)).status, '0x1', `${x} reverted: a movement went out ahead of what funds it`);
  }
  assert.equal(await onChain(T.address, OUTSIDER.address), 5n * E18);
  await finalAndClean(M);
});

test('hostile seed 11486: a buy held behind a swap of ours that ran out of gas (not final yet) holds its buyer\'s transfer of what it buys: nothing goes out ahead of what funds it', async () => {
  const M = await c.newMerchant('Held behind');
  const A = await marketToken(h, M, 'HELDA');
  const B = await marketToken(h, M, 'HELDB');
  await h.holder(M, 'late', 50);
  const ann = await h.holder(M, 'ann');
  await c.settled(M);
  // late's buy of A is held on its way to the node while the outsider adds 40 narrow
  // positions in its path: mined, it runs out of gas (hostile_gas.test.mjs's setup). That is
  // ours to send again, once its block is final.
  const market = artifact('TokenpadMarket').abi;
  const hold = h.holdSends(market, ({ tx, call }) => getAddress(tx.to) === getAddress(h.base.market) && call.functionName.startsWith('swap'));
  let first;
  try {
    c.ok(await c.call('POST', '/holder/late/buy', { key: M.secretKey, body: { tokenAddress: A.address, usdcAmount: 20 } }));
    await eventually('the swap sent', () => assert.equal(hold.held.length, 1));
    await narrowPositions(h, A, 40);
    await hold.release();
    first = await eventually('the held swap mined', async () => {
      const r = await h.node('eth_getTransactionReceipt', [keccak256(hold.held[0])]);
      assert.ok(r);
      return r;
    });
  } finally {
    h.proxy.intercept = null;
  }
  assert.equal(first.status, '0x0', 'the setup: the held swap ran out of gas');
  const from = Number(first.blockNumber);
  // While it is not final, late buys B (with USDC the reverted swap was to take: it waits
  // behind it) and passes one B token on to ann (what that buy brings: it waits behind the buy).
  c.ok(await c.call('POST', '/holder/late/buy', { key: M.secretKey, body: { tokenAddress: B.address, usdcAmount: 5 } }));
  c.ok(await c.call('POST', '/holder/late/transfer', { key: M.secretKey, body: { tokenAddress: B.address, amount: 1, toAddress: ann } }));
  await eventually('the buy and the transfer wait behind the revert', async () => {
    const v = await h.view(M);
    const fin = v.waiting.find((w) => w.kind === 'finality');
    assert.ok(fin && fin.count >= 2, JSON.stringify(v.waiting));
  });
  await followed(M, 'every movement confirmed once the revert is final and acted on', async () => {
    const buys = (await h.history(M, 'late')).filter((r) => r.type === 'buy');
    assert.equal(buys.length, 4, JSON.stringify(buys));
    assert.ok(buys.every((r) => r.chainStatus === 'confirmed'), JSON.stringify(buys));
    await confirmedOnChain(M, 'late', 'transfer_out', 1);
  }, 60_000);
  for (const x of await txsIn(from, await h.head())) {
    if (x === first.transactionHash) continue;
    assert.equal((await h.canonicalReceipt(x)).status, '0x1', `${x} reverted: a movement went out ahead of what funds it`);
  }
  assert.equal(await onChain(B.address, ann), E18, 'ann holds the B token passed on');
  await finalAndClean(M);
});

test('hostile seed 16108: a presale refund waits behind the held purchase it returns, which waits behind a test-USDC mint that moved nothing: none goes out ahead of what funds it', async () => {
  const M = await c.newMerchant('Refund behind');
  const now = Number(c.ok(await c.call('GET', '/admin/time', { adminKey: h.w.adminKey })).nowUnix);
  const q = await h.createPresale(M, { targetUsdcAmount: 100, endTimestamp: now + 30 });
  await c.settled(M);
  const { address: ann, from } = await fundedByNothing(h, M, 'ann', 10);
  // ann buys with the USDC the mint was to bring (it waits behind the mint); the presale then
  // ends short of its target, and its refund returns what that purchase brings the treasury,
  // which has no USDC of its own: sent now it would revert.
  await h.buy(M, 'ann', q.id, 10);
  await c.advance(60);
  await eventually('the purchase and the refund wait behind the mint', async () => {
    const v = await h.view(M);
    assert.equal(v.openMovements, 3, JSON.stringify(v));
    assert.deepEqual(v.transactions, [], JSON.stringify(v));
    assert.equal(v.waiting.find((w) => w.kind === 'finality')?.count, 2, JSON.stringify(v.waiting));
  });
  await followed(M, 'the mint, the purchase and the refund confirmed once the mint is final', async () => {
    await confirmedOnChain(M, 'ann', 'presale_buy', 1);
    await confirmedOnChain(M, 'ann', 'presale_refund', 1);
  }, 45_000);
  for (const x of await txsIn(from, await h.head())) {
    assert.equal((await h.canonicalReceipt(x)).status, '0x1', `${x} reverted: a movement went out ahead of what funds it`);
  }
  assert.equal(await onChain(h.base.usdc, ann), 10n * E6, 'ann holds her 10 USDC again');
  await finalAndClean(M);
});
