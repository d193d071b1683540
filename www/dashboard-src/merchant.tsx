// One merchant's pages: the dashboard credential (a dt_ token from the login session, sent by
// the package's TokenpadServer as its key, refreshed a minute before it expires and at once
// when the service says it is no longer valid), and the page nav.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { TokenpadServer } from '@tokenpad/client/server';
import { account, refreshDelay, type AccountMerchant, type DashboardToken } from './api';
import { ErrorBox, Loading } from './ui';

export interface MerchantCtx {
  id: string;
  name: string;
  role: AccountMerchant['role'];
  /** Runs `f` with the merchant's client; a credential the service refuses is renewed once and `f` run again. */
  run: <T>(f: (s: TokenpadServer) => Promise<T>) => Promise<T>;
  /** The merchant's public key (listed whole by GET /keys; kept in localStorage too). */
  publicKey: string | null;
  setPublicKey: (pk: string) => void;
  canWrite: boolean;
}

const Ctx = createContext<MerchantCtx | null>(null);

export function useMerchant(): MerchantCtx {
  const m = useContext(Ctx);
  if (!m) throw new Error('useMerchant outside a merchant page');
  return m;
}

const PK_PREFIX = 'tokenpad.dashboard.publicKey.';
export function rememberPublicKey(merchantId: string, pk: string): void {
  try {
    localStorage.setItem(PK_PREFIX + merchantId, pk);
  } catch {
    // private browsing: shown this time only
  }
}
function storedPublicKey(merchantId: string): string | null {
  try {
    return localStorage.getItem(PK_PREFIX + merchantId);
  } catch {
    return null;
  }
}

export function MerchantProvider({ merchant, children }: { merchant: AccountMerchant; children: ReactNode }) {
  const id = merchant.merchantId;
  const [failure, setFailure] = useState<unknown>(undefined);
  const [ready, setReady] = useState(false);
  const [role, setRole] = useState(merchant.role);
  const [publicKey, setPk] = useState<string | null>(() => storedPublicKey(id));
  const current = useRef<Promise<TokenpadServer> | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const renew = useCallback((): Promise<TokenpadServer> => {
    clearTimeout(timer.current);
    const p = account<DashboardToken>('POST', `/account/merchants/${encodeURIComponent(id)}/token`, {}).then((t) => {
      setRole(t.role);
      setFailure(undefined);
      setReady(true);
      timer.current = setTimeout(() => void renew().catch(() => {}), refreshDelay(t.expiresAt));
      return new TokenpadServer({ baseUrl: location.origin, apiKey: t.token, retries: 1 });
    });
    p.catch((e: unknown) => {
      setFailure(e);
      if (current.current === p) current.current = null;
    });
    current.current = p;
    return p;
  }, [id]);

  useEffect(() => {
    setReady(false);
    setPk(storedPublicKey(id));
    // The public key is listed whole by GET /keys (it is public): the live one, else one in
    // its grace period. A public key from before keys kept it is learnt at its first use.
    void renew()
      .then((s) => s.listKeys())
      .then((list) => {
        const pks = list.data.filter((k) => k.kind === 'public' && k.publicKey);
        const pk = (pks.find((k) => k.status === 'live') ?? pks.find((k) => k.status === 'expiring'))?.publicKey;
        if (pk) {
          rememberPublicKey(id, pk);
          setPk(pk);
        }
      })
      .catch(() => {});
    return () => {
      clearTimeout(timer.current);
      current.current = null;
    };
  }, [id, renew]);

  const run = useCallback(async <T,>(f: (s: TokenpadServer) => Promise<T>): Promise<T> => {
    const s = await (current.current ?? renew());
    try {
      return await f(s);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== 'invalid_api_key' && code !== 'missing_api_key') throw e;
      return f(await renew());
    }
  }, [renew]);

  const value = useMemo<MerchantCtx>(() => ({
    id, name: merchant.name, role, run, publicKey, canWrite: role !== 'viewer',
    setPublicKey: (pk: string) => {
      rememberPublicKey(id, pk);
      setPk(pk);
    },
  }), [id, merchant.name, role, run, publicKey]);

  if (!ready) {
    if (failure === undefined) return <Loading what="Opening the app" />;
    return (
      <>
        <ErrorBox error={failure} what="Opening this app" />
        {(failure as { code?: string }).code === 'not_logged_in' && <p><a href="#/login">Log in again</a></p>}
      </>
    );
  }
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export const PAGES: [string, string][] = [
  ['overview', 'Overview'], ['tokens', 'Tokens'], ['holders', 'Holders'], ['presales', 'Presales'],
  ['deployments', 'Deployments'], ['webhooks', 'Webhooks'], ['chain', 'Chain'], ['keys', 'Keys'],
  ['settings', 'Settings'], ['members', 'Members'],
];

export function PageNav({ merchantId, page }: { merchantId: string; page: string }) {
  return (
    <nav className="pages" aria-label="App pages">
      <ul>
        {PAGES.map(([slug, label]) => (
          <li key={slug}>
            <a href={`#/m/${encodeURIComponent(merchantId)}/${slug}`} aria-current={page === slug ? 'page' : undefined}>{label}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
