//! Markets: a token's Uniswap v3 pool against USDC, and holders buying and selling in it.
//!
//! - `open`: a pool from the token's liquidity reserve (`POST /token/:tokenAddress/liquidity`,
//!   a memecoin's launch, a presale's launch with its raised USDC);
//! - `trade`: `buy`, `sell` and their quotes (`POST /holder/:userId/buy`, `/sell`,
//!   `GET .../quote`);
//! - `follow`: what the chain says of pools (an opening or a swap mined, reverted, or made
//!   by someone else) brought into the ledger.
//!
//! On the embedded chain the ledger's pool is the pool, and a trade's amounts are final when
//! it is made. On an EVM chain the pool is Uniswap's contract, which anyone can trade: a
//! trade is booked at once at the worst amounts the holder accepted (the fewest out, the most
//! in), sent as a swap through tokenpad's market contract, and topped up to what the chain
//! mined. The math is `model::pool`.

mod follow;
mod open;
mod request;
mod trade;

pub use follow::{follow, pool_failed, pool_opened, resync, swap_failed, swapped};
pub use open::{open, open_liquidity, open_pool_of, pool_of, Opening};
pub use request::{BuyQuoteQuery, BuyRequest, LiquidityRequest, SellQuoteQuery, SellRequest};
pub use trade::{buy, quote_buy, quote_sell, sell, TradeReceipt};
