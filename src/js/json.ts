// Exact JSON for the server client (which has no wasm): the service writes amounts as JSON
// numbers with up to 18 fractional digits, which `JSON.parse` would round to a double. Before
// parsing, every number that is the value of an amount field (the generated DECIMAL_FIELDS,
// from the Rust wire types) is turned into a string of its exact digits; every other number
// (counts, timestamps, limits) stays a number.
import { DECIMAL_FIELDS } from './generated/decimals.js';

const AMOUNT_KEYS: ReadonlySet<string> = new Set(DECIMAL_FIELDS);

function isNumberChar(c: number): boolean {
  // 0-9 . + - e E
  return (c >= 48 && c <= 57) || c === 46 || c === 43 || c === 45 || c === 101 || c === 69;
}

/** `JSON.parse(text)`, with the numbers of the fields named in `amountKeys` as exact strings. */
export function parseExact(text: string, amountKeys: ReadonlySet<string> = AMOUNT_KEYS): unknown {
  let out = '';
  let copied = 0;
  // The key whose value is being read, per open container (arrays inherit their key).
  const keys: Array<string | null> = [null];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 92) j += 2;
        else if (d === 34) break;
        else j++;
      }
      const end = j + 1;
      let k = end;
      while (k < n && (text[k] === ' ' || text[k] === '\n' || text[k] === '\r' || text[k] === '\t')) k++;
      if (text[k] === ':') keys[keys.length - 1] = JSON.parse(text.slice(i, end)) as string;
      i = end;
    } else if (c === 123) {
      keys.push(null);
      i++;
    } else if (c === 91) {
      keys.push(keys[keys.length - 1] ?? null);
      i++;
    } else if (c === 125 || c === 93) {
      keys.pop();
      i++;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      const key = keys[keys.length - 1];
      if (key !== null && key !== undefined && amountKeys.has(key)) {
        out += `${text.slice(copied, i)}"${text.slice(i, j)}"`;
        copied = j;
      }
      i = j;
    } else {
      i++;
    }
  }
  return JSON.parse(copied === 0 ? text : out + text.slice(copied));
}
