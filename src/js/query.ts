// @tokenpad/client/query: the browser client's reads and actions as TanStack Query options
// (`useQuery(holderQuery(client, userId))`, `useMutation(spendMutation(client, queryClient))`),
// so refetch on focus and reconnect, retries with backoff, `status` / `isPending`, Suspense,
// prefetching and dehydrate / hydrate for server rendering are TanStack Query's own, as its
// users know them. Plain objects of TanStack's shapes: this file imports neither TanStack Query
// nor React (they stay the app's, in any of TanStack's adapters: React, Vue, Solid, Svelte),
// nor the wasm (the client is passed in).
//
// Freshness: a read after a write never comes from a cache on the way. The client reads fresh
// (`Cache-Control: no-cache`, past the browser's HTTP cache and the edge's kept copy) for a
// public answer's lifetime after a write it made, and the mutations here invalidate what they
// changed, so the refetch that follows is that fresh read. The live push (`followHolder`,
// `followPresale`) writes each pushed state into the query cache.
import type { ActionOptions, TokenpadClient, Watch } from './client.js';
import type { WatchOptions } from './live.js';
import type { BuyPresaleRequest, BuyPresaleResult, LedgerResult, SendRequest, SpendRequest } from './generated/api.js';
import type { HolderFull, Presale } from './generated/wire.js';

/** The query keys of tokenpad's reads: every one starts with `'tokenpad'`, a holder's with its holder key. */
export const tokenpadKeys = {
  all: ['tokenpad'] as const,
  holder: (userId: string) => ['tokenpad', 'holder', userId] as const,
  balance: (userIdOrAddress: string, tokenAddress: string) => ['tokenpad', 'holder', userIdOrAddress, 'token', tokenAddress] as const,
  token: (address: string) => ['tokenpad', 'token', address] as const,
  presale: (presaleId: string) => ['tokenpad', 'presale', presaleId] as const,
};

/** A read as TanStack Query's `useQuery`, `useSuspenseQuery`, `prefetchQuery` and `fetchQuery` take it. */
export interface TokenpadQuery<T, K extends readonly unknown[]> {
  queryKey: K;
  queryFn: (context: { signal: AbortSignal }) => Promise<T>;
  /** Retries what may pass on its own (network errors, timeouts, 429 and 5xx), 3 times; never a 4xx such as a 404. */
  retry: (failureCount: number, error: unknown) => boolean;
}

/** Whether `error` may pass on its own: no answer, a timeout, 429 or 5xx. A 4xx is the request's. */
export function retryable(error: unknown): boolean {
  const e = error as { code?: unknown; status?: unknown } | null;
  if (typeof e?.status === 'number') return e.status === 429 || e.status >= 500;
  return e?.code === 'network_error' || e?.code === 'timeout';
}

const retry = (failureCount: number, error: unknown) => failureCount < 3 && retryable(error);

function query<T, K extends readonly unknown[]>(queryKey: K, read: (signal: AbortSignal) => Promise<T>): TokenpadQuery<T, K> {
  // The client's own retries are off: TanStack Query retries, with its backoff.
  return { queryKey, queryFn: ({ signal }) => read(signal), retry };
}

/** `GET /holder/:userId`: the holder's wallet. */
export function holderQuery(client: TokenpadClient, userId: string) {
  return query(tokenpadKeys.holder(userId), (signal) => client.getHolder(userId, { signal, retries: 0 }));
}

/** `GET /holder/:userIdOrAddress/token/:tokenAddress`: one balance. */
export function balanceQuery(client: TokenpadClient, userIdOrAddress: string, tokenAddress: string) {
  return query(tokenpadKeys.balance(userIdOrAddress, tokenAddress),
    (signal) => client.getHolderTokenBalance(userIdOrAddress, tokenAddress, { signal, retries: 0 }));
}

/** `GET /token/:address`: the token, its supply figures and top holders. */
export function tokenQuery(client: TokenpadClient, address: string) {
  return query(tokenpadKeys.token(address), (signal) => client.getToken(address, { signal, retries: 0 }));
}

/** `GET /token/presales/:presaleId`: the presale's public form. */
export function presaleQuery(client: TokenpadClient, presaleId: string) {
  return query(tokenpadKeys.presale(presaleId), (signal) => client.getPresale(presaleId, { signal, retries: 0 }));
}

/** What the mutations invalidate, and the live push writes into: TanStack Query's `QueryClient` (only these two methods are used). */
export interface QueryCacheLike {
  invalidateQueries(filters: { queryKey: readonly unknown[] }): Promise<unknown>;
  setQueryData(queryKey: readonly unknown[], data: unknown): unknown;
}

/** A mutation as TanStack Query's `useMutation` takes it. */
export interface TokenpadMutation<V, R> {
  mutationKey: readonly unknown[];
  mutationFn: (variables: V) => Promise<R>;
  onSuccess: (data: R, variables: V) => Promise<void>;
}

/** What a holder's action is called with: the holder, the request's fields, and optionally its Idempotency-Key. */
export type ActionVariables<Req> = Req & { userId: string; idempotencyKey?: string };

function action<Req, R>(name: string, queryClient: QueryCacheLike | undefined,
  run: (userId: string, req: Req, o: ActionOptions) => Promise<R>,
  changed: (v: ActionVariables<Req>) => (readonly unknown[])[]): TokenpadMutation<ActionVariables<Req>, R> {
  return {
    mutationKey: ['tokenpad', name],
    mutationFn: (v) => {
      const { userId, idempotencyKey, ...req } = v;
      return run(userId, req as unknown as Req, { idempotencyKey });
    },
    onSuccess: async (_data, v) => {
      await Promise.all(changed(v).map((queryKey) => queryClient?.invalidateQueries({ queryKey })));
    },
  };
}

/**
 * `POST /holder/:userId/spend` (a client with a session token that has `spend`):
 * `mutate({ userId, tokenAddress, amount })`. The holder's queries are read again, fresh.
 */
export function spendMutation(client: TokenpadClient, queryClient?: QueryCacheLike): TokenpadMutation<ActionVariables<SpendRequest>, LedgerResult> {
  return action('spend', queryClient, (u, r: SpendRequest, o) => client.spend(u, r, o), (v) => [tokenpadKeys.holder(v.userId)]);
}

/** `POST /holder/:userId/transfer` (session token with `transfer`): `mutate({ userId, tokenAddress, amount, toAddress })`. */
export function transferMutation(client: TokenpadClient, queryClient?: QueryCacheLike): TokenpadMutation<ActionVariables<SendRequest>, LedgerResult> {
  return action('transfer', queryClient, (u, r: SendRequest, o) => client.transfer(u, r, o), (v) => [tokenpadKeys.holder(v.userId)]);
}

/** `POST /holder/:userId/buy-presale` (session token with `buy-presale`): the holder's and the presale's queries are read again. */
export function buyPresaleMutation(client: TokenpadClient, queryClient?: QueryCacheLike): TokenpadMutation<ActionVariables<BuyPresaleRequest>, BuyPresaleResult> {
  return action('buy-presale', queryClient, (u, r: BuyPresaleRequest, o) => client.buyPresale(u, r, o),
    (v) => [tokenpadKeys.holder(v.userId), tokenpadKeys.presale(v.presaleId)]);
}

/**
 * Writes every state of the holder the service pushes (over the WebSocket; polled while it is
 * down) into the query cache under `holderQuery`'s key, until `stop()`. In React:
 * `useEffect(() => { const w = followHolder(client, queryClient, userId); return () => w.stop(); }, [userId])`.
 */
export function followHolder(client: TokenpadClient, queryClient: QueryCacheLike, userId: string, options?: WatchOptions): Watch {
  return client.watchHolder(userId, (h: HolderFull | null) => {
    if (h) queryClient.setQueryData(tokenpadKeys.holder(userId), h);
  }, options);
}

/** The same for a presale's public form, under `presaleQuery`'s key. */
export function followPresale(client: TokenpadClient, queryClient: QueryCacheLike, presaleId: string, options?: WatchOptions): Watch {
  return client.watchPresale(presaleId, (p: Presale | null) => {
    if (p) queryClient.setQueryData(tokenpadKeys.presale(presaleId), p);
  }, options);
}
