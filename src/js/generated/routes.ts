// Generated from the route declarations (crates/core/src/wire/<family>.rs, `ROUTES`) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: declare the route in its family's wire file and run that command.

/**
 * The routes the package calls over HTTP (a merchant's: no admin or open ones, and not
 * the live channel's WebSocket), by operationId: the method, the path as declared
 * (`:name` is a parameter, percent-encoded when sent) and whether the route writes (it
 * then takes an Idempotency-Key).
 */
export const ROUTES = {
  createToken: { method: 'POST', path: '/merchant/create-token', writes: true },
  getCreateTokenStatus: { method: 'GET', path: '/merchant/create-token/status/:jobId', writes: false },
  getJob: { method: 'GET', path: '/jobs/:jobId', writes: false },
  patchToken: { method: 'PATCH', path: '/merchant/token/:tokenAddress', writes: true },
  listTokens: { method: 'GET', path: '/merchant/all-tokens', writes: false },
  getToken: { method: 'GET', path: '/token/:tokenAddress', writes: false },
  putHolder: { method: 'PUT', path: '/holder/:userId', writes: true },
  getHolder: { method: 'GET', path: '/holder/:userId', writes: false },
  getHolderTokenBalance: { method: 'GET', path: '/holder/:holder/token/:tokenAddress', writes: false },
  distribute: { method: 'POST', path: '/token/:tokenAddress/distribute', writes: true },
  reward: { method: 'POST', path: '/token/:tokenAddress/reward', writes: true },
  spend: { method: 'POST', path: '/holder/:userId/spend', writes: true },
  transfer: { method: 'POST', path: '/holder/:userId/transfer', writes: true },
  withdraw: { method: 'POST', path: '/holder/:userId/withdraw', writes: true },
  listHolderTransactions: { method: 'GET', path: '/holder/:userId/transactions', writes: false },
  createPresale: { method: 'POST', path: '/merchant/presale', writes: true },
  listPresales: { method: 'GET', path: '/merchant/presales', writes: false },
  resolvePresale: { method: 'POST', path: '/merchant/presale/resolve', writes: true },
  resolvePresaleAlias: { method: 'POST', path: '/resolve-presale', writes: true },
  getMerchantPresale: { method: 'GET', path: '/merchant/presale/:presaleId', writes: false },
  getPresale: { method: 'GET', path: '/token/presales/:presaleId', writes: false },
  buyPresale: { method: 'POST', path: '/holder/:userId/buy-presale', writes: true },
  createLiquidity: { method: 'POST', path: '/token/:tokenAddress/liquidity', writes: true },
  buy: { method: 'POST', path: '/holder/:userId/buy', writes: true },
  sell: { method: 'POST', path: '/holder/:userId/sell', writes: true },
  buyQuote: { method: 'GET', path: '/holder/:userId/buy/quote', writes: false },
  sellQuote: { method: 'GET', path: '/holder/:userId/sell/quote', writes: false },
  createMemecoin: { method: 'POST', path: '/template/memecoin', writes: true },
  createAirdrop: { method: 'POST', path: '/template/airdrop', writes: true },
  getMemecoinStatus: { method: 'GET', path: '/template/memecoin/status/:id', writes: false },
  getMemecoinStatusByQuery: { method: 'GET', path: '/memecoin/status', writes: false },
  postMemecoinStatus: { method: 'POST', path: '/memecoin/status', writes: false },
  getAirdropStatus: { method: 'GET', path: '/template/airdrop/status/:id', writes: false },
  getAirdropStatusByQuery: { method: 'GET', path: '/airdrop/status', writes: false },
  postAirdropStatus: { method: 'POST', path: '/airdrop/status', writes: false },
  createSession: { method: 'POST', path: '/holder/:userId/session', writes: true },
  revokeSessions: { method: 'DELETE', path: '/holder/:userId/sessions', writes: true },
  getSession: { method: 'GET', path: '/session', writes: false },
  listParkedWork: { method: 'GET', path: '/merchant/parked-work', writes: false },
  getMerchantChain: { method: 'GET', path: '/merchant/chain', writes: false },
  getSettings: { method: 'GET', path: '/merchant/settings', writes: false },
  patchSettings: { method: 'PATCH', path: '/merchant/settings', writes: true },
  listKeys: { method: 'GET', path: '/keys', writes: false },
  createKey: { method: 'POST', path: '/keys', writes: true },
  rollKey: { method: 'POST', path: '/keys/:keyId/roll', writes: true },
  revokeKey: { method: 'POST', path: '/keys/:keyId/revoke', writes: true },
  listEvents: { method: 'GET', path: '/merchant/events', writes: false },
  getEvent: { method: 'GET', path: '/merchant/events/:eventId', writes: false },
  createWebhook: { method: 'POST', path: '/merchant/webhooks', writes: true },
  listWebhooks: { method: 'GET', path: '/merchant/webhooks', writes: false },
  getWebhook: { method: 'GET', path: '/merchant/webhooks/:webhookId', writes: false },
  updateWebhook: { method: 'PATCH', path: '/merchant/webhooks/:webhookId', writes: true },
  deleteWebhook: { method: 'DELETE', path: '/merchant/webhooks/:webhookId', writes: true },
  testWebhook: { method: 'POST', path: '/merchant/webhooks/:webhookId/test', writes: true },
  listDeliveries: { method: 'GET', path: '/merchant/webhooks/:webhookId/deliveries', writes: false },
  replayDelivery: { method: 'POST', path: '/merchant/webhooks/:webhookId/deliveries/:deliveryId/replay', writes: true },
} as const;

/** The operationId of a route the package calls. */
export type OperationId = keyof typeof ROUTES;
