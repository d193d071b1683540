// @tokenpad/client/react: hooks over a TokenpadClient, built on useSyncExternalStore. Deprecated
// for TanStack Query with @tokenpad/client/query's options (query.ts); kept for one release. One
// store per (client, resource): components that read the same holder share one watch (one
// WebSocket), started by the first subscriber and stopped after the last. Imports no wasm
// (the client is passed in; only errors.js at run time), so it adds nothing to what a page
// downloads for the client; React is the app's own (a peer dependency, never bundled, in
// react.cjs neither).
//
// Server rendering: hooks never start a watch on the server (React does not subscribe there);
// they render `initialData` when given (read it on the server, pass the same value to the
// client for hydration), else `loading: true`.
import { createContext, createElement, useCallback, useContext, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { ActionOptions, TokenpadClient, Watch } from './client.js';
import type { CallOptions } from './http.js';
import { toTokenpadError, type TokenpadError } from './errors.js';
import type { BuyPresaleRequest, BuyPresaleResult, LedgerResult, SendRequest, SpendRequest } from './generated/api.js';
import type { HolderFull, Presale, Token } from './generated/wire.js';

/** What a hook returns: the latest value, the latest error, how it arrives, and a re-read. */
export interface Resource<T> {
  /** The latest value read (kept while a later read fails); `initialData` until the first read. */
  data: T | null;
  /** The latest read's error; null once a read succeeds again. */
  error: TokenpadError | null;
  /** True until the first value or error (false from the start with `initialData`). */
  loading: boolean;
  /** True while updates are pushed over the WebSocket (false while polling). */
  live: boolean;
  /** Reads it again now (resolves when the read is done; its result or error lands in the hook). */
  refetch: () => Promise<void>;
}

export interface HookOptions<T = unknown> {
  /** The client (default: the one of the nearest TokenpadProvider). */
  client?: TokenpadClient;
  /** Milliseconds between reads while polling (default 5000; tokens are always polled, 15000). */
  intervalMs?: number;
  /**
   * The value to show before the first read: what the server rendered with (server rendering
   * and hydration). The hook still reads (and follows) it once mounted.
   */
  initialData?: T;
}

const TokenpadContext = createContext<TokenpadClient | null>(null);

/** Makes `client` the default of the hooks below it. */
export function TokenpadProvider(props: { client: TokenpadClient; children?: ReactNode }): ReactNode {
  return createElement(TokenpadContext.Provider, { value: props.client }, props.children);
}

interface Store<T> {
  subscribe(onChange: () => void): () => void;
  get(): Resource<T>;
  refetch(): Promise<void>;
}

const stores = new WeakMap<TokenpadClient, Map<string, Store<unknown>>>();

type Start<T> = (set: (data: T | null, error: TokenpadError | null) => void, setLive: (live: boolean) => void) => Watch;

const noRefetch = async () => {};
const IDLE: Resource<never> = { data: null, error: null, loading: false, live: false, refetch: noRefetch };
const LOADING: Resource<never> = { data: null, error: null, loading: true, live: false, refetch: noRefetch };

function initialSnapshot<T>(initial: T | undefined, refetch: () => Promise<void>): Resource<T> {
  return initial === undefined
    ? { ...LOADING, refetch }
    : { data: initial, error: null, loading: false, live: false, refetch };
}

function store<T>(client: TokenpadClient, key: string, start: Start<T>, read: (o: CallOptions) => Promise<T>, initial: T | undefined): Store<T> {
  let byKey = stores.get(client);
  if (!byKey) stores.set(client, (byKey = new Map()));
  const found = byKey.get(key);
  if (found) return found as Store<T>;
  const listeners = new Set<() => void>();
  let watch: Watch | null = null;
  const notify = () => {
    for (const l of listeners) l();
  };
  const set = (data: T | null, error: TokenpadError | null) => {
    snapshot = { data: data ?? snapshot.data, error, loading: false, live: watch?.live ?? false, refetch };
    notify();
  };
  const setLive = (live: boolean) => {
    if (snapshot.live === live) return;
    snapshot = { ...snapshot, live };
    notify();
  };
  const refetch = async () => {
    try {
      // Fresh: past the browser's HTTP cache and the edge's kept copy (a refetch asks for now).
      set(await read({ fresh: true }), null);
    } catch (e) {
      set(null, toTokenpadError(e));
    }
  };
  let snapshot: Resource<T> = initialSnapshot(initial, refetch);
  const s: Store<T> = {
    subscribe(onChange) {
      listeners.add(onChange);
      if (!watch) watch = start(set, setLive);
      return () => {
        listeners.delete(onChange);
        if (listeners.size === 0) {
          watch?.stop();
          watch = null;
          byKey?.delete(key);
        }
      };
    },
    get: () => snapshot,
    refetch,
  };
  byKey.set(key, s as Store<unknown>);
  return s;
}

/** Re-reads this client's stores whose key starts with one of `prefixes` (after an action). */
function refetchAll(client: TokenpadClient, prefixes: string[]): void {
  for (const [key, s] of stores.get(client) ?? []) {
    if (prefixes.some((p) => key.startsWith(p))) void s.refetch();
  }
}

// React Native has no `window` but renders on a device; everything else without one is a server.
const onServer = typeof window === 'undefined' &&
  (globalThis as { navigator?: { product?: string } }).navigator?.product !== 'ReactNative';

/**
 * React's hooks fail with a TypeError when the React this file imported is not the one
 * rendering: a hook called outside a component, or (the usual case) two copies of React,
 * because the package is installed as a link (`npm install <folder>`, `npm link`) and resolves
 * `react` from its own folder. Said plainly, with the fixes.
 */
function secondReact(e: unknown): Error {
  return new Error('tokenpad: a React hook of @tokenpad/client/react failed ' +
    `(${e instanceof Error ? e.message : String(e)}). Either it was called outside a component, or this file loaded ` +
    'another copy of React than the one rendering your app: a package installed as a link (npm install <folder>, ' +
    'npm link) resolves react from its own folder. Install @tokenpad/client from the registry, from its tarball ' +
    '(npm pack), or by path as a copy (npm install --install-links <folder>); with a link, have your bundler use ' +
    "one React (vite: resolve.dedupe: ['react', 'react-dom']).", { cause: e });
}

function useClient(options: { client?: TokenpadClient } | undefined): TokenpadClient {
  let fromContext: TokenpadClient | null;
  try {
    fromContext = useContext(TokenpadContext);
  } catch (e) {
    throw e instanceof TypeError ? secondReact(e) : e;
  }
  const client = options?.client ?? fromContext;
  if (!client) throw new Error('tokenpad: no client; pass { client } or wrap the tree in <TokenpadProvider client={...}>');
  return client;
}

function useResource<T>(options: HookOptions<T> | undefined, key: string | null, start: (c: TokenpadClient) => Start<T>,
  read: (c: TokenpadClient) => (o: CallOptions) => Promise<T>): Resource<T> {
  const client = useClient(options);
  const initial = options?.initialData;
  // On the server nothing subscribes, so no store is kept there: the initial value is rendered.
  const serverSnapshot = useMemo(() => (key === null ? IDLE : initialSnapshot(initial, noRefetch)), [key, initial]);
  const s = key === null || onServer ? null : store(client, key, start(client), read(client), initial);
  return useSyncExternalStore(
    s ? s.subscribe : noSubscribe,
    s ? s.get : () => serverSnapshot,
    s ? s.get : () => serverSnapshot,
  ) as Resource<T>;
}

const noSubscribe = () => () => {};

/**
 * A holder's wallet, live (pushed over the WebSocket, polled while it is down). Null `userId`: idle.
 * @deprecated Use TanStack Query with `@tokenpad/client/query`'s `holderQuery` and `followHolder` (refetch on focus, retries, Suspense, server rendering); kept working for one release.
 */
export function useHolder(userId: string | null | undefined, options?: HookOptions<HolderFull>): Resource<HolderFull> {
  const key = userId ? `holder:${userId}:${options?.intervalMs ?? ''}` : null;
  return useResource<HolderFull>(options, key,
    (c) => (set, onLive) => c.watchHolder(userId as string, set, { intervalMs: options?.intervalMs, onLive }),
    (c) => (o) => c.getHolder(userId as string, o));
}

/**
 * A presale's public form, live. Null `presaleId`: idle.
 * @deprecated Use TanStack Query with `@tokenpad/client/query`'s `presaleQuery` and `followPresale` (refetch on focus, retries, Suspense, server rendering); kept working for one release.
 */
export function usePresale(presaleId: string | null | undefined, options?: HookOptions<Presale>): Resource<Presale> {
  const key = presaleId ? `presale:${presaleId}:${options?.intervalMs ?? ''}` : null;
  return useResource<Presale>(options, key,
    (c) => (set, onLive) => c.watchPresale(presaleId as string, set, { intervalMs: options?.intervalMs, onLive }),
    (c) => (o) => c.getPresale(presaleId as string, o));
}

/**
 * A token, read at once and then every `intervalMs` (default 15000; tokens are not pushed).
 * @deprecated Use TanStack Query with `@tokenpad/client/query`'s `tokenQuery` (refetch on focus, retries, Suspense, server rendering); kept working for one release.
 */
export function useToken(address: string | null | undefined, options?: HookOptions<Token>): Resource<Token> {
  const every = options?.intervalMs ?? 15_000;
  const key = address ? `token:${address}:${every}` : null;
  return useResource<Token>(options, key, (c) => (set) => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const read = async () => {
      try {
        const t = await c.getToken(address as string, { signal: controller.signal });
        if (!stopped) set(t, null);
      } catch (e) {
        if (!stopped) set(null, toTokenpadError(e));
      }
      if (!stopped) timer = setTimeout(read, every);
    };
    void read();
    return {
      stop() {
        stopped = true;
        controller.abort();
        clearTimeout(timer);
      },
      get active() {
        return !stopped;
      },
      live: false,
    };
  }, (c) => (o) => c.getToken(address as string, o));
}

/** What a mutation hook returns. */
export interface Mutation<Req, Res> {
  /** Runs it; resolves with its answer, or undefined when it failed (then `error` says why). */
  mutate: (userId: string, request: Req, options?: ActionOptions) => Promise<Res | undefined>;
  /** The same, rejecting with the TokenpadError instead. */
  mutateAsync: (userId: string, request: Req, options?: ActionOptions) => Promise<Res>;
  /** The last success's answer. */
  data: Res | null;
  /** The last failure (a TokenpadError with the service's code), null after a success. */
  error: TokenpadError | null;
  /** True while a call is in flight. */
  pending: boolean;
  /** Forgets data and error. */
  reset: () => void;
}

interface MutationState<Res> {
  data: Res | null;
  error: TokenpadError | null;
  pending: boolean;
}

function useMutation<Req, Res>(options: { client?: TokenpadClient } | undefined,
  run: (c: TokenpadClient, userId: string, req: Req, o?: ActionOptions) => Promise<Res>,
  affected: (userId: string, req: Req) => string[]): Mutation<Req, Res> {
  const client = useClient(options);
  const [state, setState] = useState<MutationState<Res>>({ data: null, error: null, pending: false });
  const latest = useRef(0);
  const mutateAsync = useCallback(async (userId: string, req: Req, o?: ActionOptions): Promise<Res> => {
    const n = ++latest.current;
    setState((s) => ({ ...s, pending: true }));
    try {
      const res = await run(client, userId, req, o);
      if (n === latest.current) setState({ data: res, error: null, pending: false });
      // What it changed shows at once, also where no push arrives (polling, another tab).
      refetchAll(client, affected(userId, req));
      return res;
    } catch (e) {
      const err = toTokenpadError(e);
      if (n === latest.current) setState((s) => ({ data: s.data, error: err, pending: false }));
      throw err;
    }
  }, [client]);
  const mutate = useCallback((userId: string, req: Req, o?: ActionOptions) => mutateAsync(userId, req, o).catch(() => undefined),
    [mutateAsync]);
  const reset = useCallback(() => setState({ data: null, error: null, pending: false }), []);
  return { mutate, mutateAsync, reset, ...state };
}

/**
 * Buys into a presale for the signed-in holder (a client with a session token that has the
 * `buy-presale` scope): `mutate(userId, { presaleId, usdcAmount })`. On success the holder's
 * and the presale's hooks read again.
 * @deprecated Use TanStack Query with `@tokenpad/client/query`'s `buyPresaleMutation` (refetch on focus, retries, Suspense, server rendering); kept working for one release.
 */
export function useBuyPresale(options?: { client?: TokenpadClient }): Mutation<BuyPresaleRequest, BuyPresaleResult> {
  return useMutation(options, (c, u, r, o) => c.buyPresale(u, r, o),
    (u, r) => [`holder:${u}:`, `presale:${r.presaleId}:`]);
}

/**
 * Sends the holder's tokens to an address (session token with `transfer`): `mutate(userId, { tokenAddress, amount, toAddress })`.
 * @deprecated Use TanStack Query with `@tokenpad/client/query`'s `transferMutation` (refetch on focus, retries, Suspense, server rendering); kept working for one release.
 */
export function useTransfer(options?: { client?: TokenpadClient }): Mutation<SendRequest, LedgerResult> {
  return useMutation(options, (c, u, r, o) => c.transfer(u, r, o), (u) => [`holder:${u}:`]);
}

/**
 * Spends the holder's tokens to the merchant (session token with `spend`): `mutate(userId, { tokenAddress, amount })`.
 * @deprecated Use TanStack Query with `@tokenpad/client/query`'s `spendMutation` (refetch on focus, retries, Suspense, server rendering); kept working for one release.
 */
export function useSpend(options?: { client?: TokenpadClient }): Mutation<SpendRequest, LedgerResult> {
  return useMutation(options, (c, u, r, o) => c.spend(u, r, o), (u) => [`holder:${u}:`]);
}
