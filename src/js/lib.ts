// Everything the package exports, whatever the runtime; the entry points (index, inline,
// workerd, node, init) differ only in how they load the wasm before this is used.
export { TokenpadClient } from './client.js';
export type { TokenpadClientOptions, CallOptions, Watch, WatchCallback, WatchOptions, ActionOptions, HistoryQuery } from './client.js';
export { TokenpadError, isTokenpadError } from './errors.js';
export type { TokenpadErrorCode, ClientErrorCode, TokenpadErrorInit } from './errors.js';
export { serviceNow, serviceClockOffset, serviceClockKnown } from './clock.js';
export { ready } from './ready.js';
export { formatAmount, formatUnits, countdown, holderPortfolio, presaleProgress, tokenSupply } from './views.js';
export type * from './types.js';
export type * from './generated/wire.js';
export type {
  BuyPresaleRequest, BuyPresaleResult, LedgerResult, SendRequest, SessionInfo, SessionLimit, SessionScope, SpendRequest,
  TxPage, TxRecord,
} from './generated/api.js';
