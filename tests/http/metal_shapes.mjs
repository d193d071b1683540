// The shapes of Metal's SDK types (0xmetropolis/metal-sdk, src/types.ts) and a check of a value
// against one: what metal_compat.test.mjs and metal_sdk.test.mjs hold tokenpad's answers to.
import assert from 'node:assert/strict';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Checks `value` against a shape from the SDK's src/types.ts: { field: type } where type is
 * 'string', 'number', 'boolean', 'address', 'hex', 'null', a union 'number|null', a nested
 * shape, [shape] for an array, or a literal list ['a', 'b']; a name ending in '?' is optional.
 */
export function assertShape(value, shape, where) {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where} is not an object: ${JSON.stringify(value)}`);
  for (const [key, type] of Object.entries(shape)) {
    const optional = key.endsWith('?');
    const name = optional ? key.slice(0, -1) : key;
    const at = `${where}.${name}`;
    if (!(name in value) || value[name] === undefined) {
      assert.ok(optional, `${at} is missing (the SDK's types declare it): ${JSON.stringify(value).slice(0, 400)}`);
      continue;
    }
    assertType(value[name], type, at);
  }
}
export function assertType(v, type, at) {
  if (Array.isArray(type) && type.length === 1 && typeof type[0] === 'object') {
    assert.ok(Array.isArray(v), `${at} is not an array`);
    v.forEach((x, i) => assertShape(x, type[0], `${at}[${i}]`));
  } else if (Array.isArray(type)) {
    assert.ok(type.includes(v), `${at} is ${JSON.stringify(v)}, not one of ${type.join(', ')}`);
  } else if (typeof type === 'object') {
    assertShape(v, type, at);
  } else {
    const okOne = type.split('|').some((t) => {
      if (t === 'null') return v === null;
      if (t === 'address') return typeof v === 'string' && ADDRESS.test(v);
      if (t === 'hex') return typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v);
      if (t === 'number') return typeof v === 'number' && Number.isFinite(v);
      return typeof v === t;
    });
    assert.ok(okOne, `${at} is ${JSON.stringify(v)}, not ${type}`);
  }
}

// The SDK's src/types.ts, as shapes.
export const TokenHolder = { id: 'string', address: 'address', balance: 'number', value: 'number' };
export const TokenData = {
  id: 'address', address: 'address', name: 'string', symbol: 'string', totalSupply: 'number',
  startingAppSupply: 'number', remainingAppSupply: 'number', 'merchantSupply?': 'number',
  'merchantAddress?': 'address', price: 'number|null', holders: [TokenHolder],
};
export const TokenInfo = { id: 'string', address: 'string', name: 'string', symbol: 'string', balance: 'number', value: 'number' };
export const HolderData = { id: 'string', address: 'address', tokens: [TokenInfo], totalValue: 'number' };
export const STATUS = ['success', 'pending', 'failed', 'stuck'];
export const TokenJobResponse = { jobId: 'string', status: STATUS, data: TokenData };
export const SpendResponse = { success: 'boolean', 'transactionHash?': 'hex' };
export const TokenBalanceResponse = { name: 'string', symbol: 'string', id: 'string', address: 'string', balance: 'number', 'value?': 'number|null' };
export const PendingTokenResponse = { id: 'string', status: ['pending'], 'transactionHash?': 'hex' };
export const SuccessfulTokenResponse = {
  id: 'string', status: ['success'], tokenAddress: 'address', transactionHash: 'hex', metalBuildUrl: 'string',
  uniswapUrl: 'string', 'lpInfo?': { nftId: 'string', liquidityPoolAddress: 'address' },
};
export const TokenRewardResponse = {
  // txUrl (an explorer page) is left out: the embedded chain's transactions are on no explorer.
  name: 'string', symbol: 'string', tokenAddress: 'address', txHash: 'hex', amount: 'number',
  recipient: 'address', rewardsBalance: 'number',
};
