// Exact amounts for the tests: wire numbers read as BigInt base units, never through a float.
//
//   import { exact, units, usdc, text } from './amounts.mjs';
//   const body = exact(r);                 // every JSON number kept as its exact text
//   units(body.pool.tokenReserve)          // -> base units of an 18-decimal token (BigInt)
//   usdc(body.usdcAmount)                  // -> base units of USDC (6 decimals)
//   text(123n, 6)                          // -> '0.000123', as a request can carry it
import assert from 'node:assert/strict';

/** 10^30: a price's raw figure (USD per whole token, 18 decimals) over USDC base units per token base unit. */
export const E30 = 10n ** 30n;

/** The JSON body of answer `r` ({ text }) with every number kept as its exact text (JSON.parse would round past 2^53). */
export function exact(r) {
  return JSON.parse(r.text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
    (m) => (m[0] === '"' ? m : `"${m}"`)));
}

/** A wire amount (number text or decimal string) in base units of `decimals`, exactly. */
export function units(n, decimals = 18) {
  const s = String(n).toLowerCase();
  const [mant, exp = '0'] = s.split('e');
  const neg = mant.startsWith('-');
  const [int, frac = ''] = mant.replace('-', '').split('.');
  const shift = decimals - frac.length + Number(exp);
  let digits = BigInt(int + frac);
  if (shift >= 0) digits *= 10n ** BigInt(shift);
  else {
    const div = 10n ** BigInt(-shift);
    assert.equal(digits % div, 0n, `${s} has more than ${decimals} decimals`);
    digits /= div;
  }
  return neg ? -digits : digits;
}

/** A wire USDC amount in base units (6 decimals). */
export const usdc = (n) => units(n, 6);

/** Base units as the decimal text a request can carry. */
export function text(u, decimals = 18) {
  const s = u.toString().padStart(decimals + 1, '0');
  const frac = s.slice(-decimals).replace(/0+$/, '');
  return s.slice(0, -decimals) + (frac ? `.${frac}` : '');
}

/** USD per whole token (18 decimals) at which `tokens` base units cost `u` USDC base units (floored). */
export const priceOf = (u, tokens) => (u * E30) / tokens;

/** The value in micro-USD of `balance` base units (18 decimals) at `price` (floored). */
export const valueAt = (balance, price) => (balance * price) / E30;
