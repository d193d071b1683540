// Generated from the Rust request and wire types (through openapi.json's schemas) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: change the Rust types and run that command.

/** The fields that carry an amount in the service's answers: read as exact decimal strings. */
export const DECIMAL_FIELDS: readonly string[] = [
  'amount',
  'balance',
  'chain',
  'fee',
  'ledger',
  'liquiditySupply',
  'lockedBalance',
  'merchantSupply',
  'poolPrice',
  'poolPriceAfter',
  'price',
  'priceImpact',
  'progress',
  'purchasedUsdcAmount',
  'remainingAppSupply',
  'remainingRewardSupply',
  'rewardsBalance',
  'startingAppSupply',
  'startingRewardSupply',
  'targetUsdcAmount',
  'tokenAmount',
  'tokenPercentage',
  'tokenReserve',
  'totalSupply',
  'totalValue',
  'usdcAmount',
  'usdcReserve',
  'value',
  'virtualUsdcReserve',
];
