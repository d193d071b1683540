// @tokenpad/client/react: hooks over a TokenpadClient, built on useSyncExternalStore. One
// store per (client, resource): components that read the same holder share one watch (one
// WebSocket), started by the first subscriber and stopped after the last. Imports nothing of
// the package at run time (the client is passed in), so it adds nothing to a page that does
// not use it.
import { createContext, createElement, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { TokenpadClient, Watch } from './client.js';
import type { TokenpadError } from './errors.js';
import type { HolderFull, Presale, Token } from './generated/wire.js';

/** What a hook returns: the latest value, the latest error, and how it arrives. */
export interface Resource<T> {
  /** The latest value read (kept while a later read fails). */
  data: T | null;
  /** The latest read's error; null once a read succeeds again. */
  error: TokenpadError | null;
  /** True until the first value or error. */
  loading: boolean;
  /** True while updates are pushed over the WebSocket (false while polling). */
  live: boolean;
}

export interface HookOptions {
  /** The client (default: the one of the nearest TokenpadProvider). */
  client?: TokenpadClient;
  /** Milliseconds between reads while polling (default 5000; tokens are always polled). */
  intervalMs?: number;
}

const TokenpadContext = createContext<TokenpadClient | null>(null);

/** Makes `client` the default of the hooks below it. */
export function TokenpadProvider(props: { client: TokenpadClient; children?: ReactNode }): ReactNode {
  return createElement(TokenpadContext.Provider, { value: props.client }, props.children);
}

interface Store<T> {
  subscribe(onChange: () => void): () => void;
  get(): Resource<T>;
}

const LOADING: Resource<never> = { data: null, error: null, loading: true, live: false };
const stores = new WeakMap<TokenpadClient, Map<string, Store<unknown>>>();

type Start<T> = (set: (data: T | null, error: TokenpadError | null) => void, setLive: (live: boolean) => void) => Watch;

function store<T>(client: TokenpadClient, key: string, start: Start<T>): Store<T> {
  let byKey = stores.get(client);
  if (!byKey) stores.set(client, (byKey = new Map()));
  const found = byKey.get(key);
  if (found) return found as Store<T>;
  const listeners = new Set<() => void>();
  let snapshot: Resource<T> = LOADING;
  let watch: Watch | null = null;
  const notify = () => {
    for (const l of listeners) l();
  };
  const set = (data: T | null, error: TokenpadError | null) => {
    snapshot = { data: data ?? snapshot.data, error, loading: false, live: watch?.live ?? false };
    notify();
  };
  const setLive = (live: boolean) => {
    if (snapshot.live === live) return;
    snapshot = { ...snapshot, live };
    notify();
  };
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
  };
  byKey.set(key, s as Store<unknown>);
  return s;
}

function useResource<T>(options: HookOptions | undefined, key: string | null, start: (c: TokenpadClient) => Start<T>): Resource<T> {
  const fromContext = useContext(TokenpadContext);
  const client = options?.client ?? fromContext;
  if (!client) throw new Error('tokenpad: no client; pass { client } or wrap the tree in <TokenpadProvider client={...}>');
  const s = key === null ? null : store(client, key, start(client));
  return useSyncExternalStore(
    s ? s.subscribe : noSubscribe,
    s ? s.get : idle,
    s ? s.get : idle,
  ) as Resource<T>;
}

const IDLE: Resource<never> = { data: null, error: null, loading: false, live: false };
const idle = () => IDLE;
const noSubscribe = () => () => {};

/** A holder's wallet, live (pushed over the WebSocket, polled while it is down). Null `userId`: idle. */
export function useHolder(userId: string | null | undefined, options?: HookOptions): Resource<HolderFull> {
  const key = userId ? `holder:${userId}:${options?.intervalMs ?? ''}` : null;
  return useResource<HolderFull>(options, key, (c) => (set, onLive) =>
    c.watchHolder(userId as string, set, { intervalMs: options?.intervalMs, onLive }));
}

/** A presale's public form, live. Null `presaleId`: idle. */
export function usePresale(presaleId: string | null | undefined, options?: HookOptions): Resource<Presale> {
  const key = presaleId ? `presale:${presaleId}:${options?.intervalMs ?? ''}` : null;
  return useResource<Presale>(options, key, (c) => (set, onLive) =>
    c.watchPresale(presaleId as string, set, { intervalMs: options?.intervalMs, onLive }));
}

/** A token, read at once and then every `intervalMs` (default 15000; tokens are not pushed). */
export function useToken(address: string | null | undefined, options?: HookOptions): Resource<Token> {
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
        if (!stopped) set(null, e as TokenpadError);
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
  });
}
