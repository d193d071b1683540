// The merchant dashboard (docs/dashboard.md): React 19 and Pico CSS, served by the Worker at
// /dashboard/, hash routes (#/login, #/m/:merchantId/tokens, ...). Every merchant page calls
// the same HTTP API as the SDK through the package (@tokenpad/client/server's TokenpadServer
// with the dashboard credential), every figure formatted by the package's wasm.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { ready } from '@tokenpad/client';
import { account, currentAccount, type Account, type AccountMerchantCreated } from './api';
import { MerchantProvider, PageNav, rememberPublicKey } from './merchant';
import { Forgot, Invite, LogIn, Mailbox, Reset, SignUp, Verify } from './pages/auth';
import { MerchantPage } from './pages/index';
import { CopyButton, ErrorBox, Loading, ShownOnce, useAction } from './ui';

interface Route {
  path: string[];
  query: URLSearchParams;
}
function readRoute(): Route {
  const h = location.hash.replace(/^#\/?/, '');
  const [p, q] = h.split('?');
  return { path: (p ?? '').split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q ?? '') };
}
function useRoute(): Route {
  const [r, setR] = useState(readRoute);
  useEffect(() => {
    const on = () => setR(readRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return r;
}
export const go = (hash: string) => {
  location.hash = hash;
};

function Header({ me, merchantId, onLogout }: { me: Account | null; merchantId?: string; onLogout: () => void }) {
  const act = useAction<unknown>();
  const logout = async (all: boolean) => {
    await act.run(async () => (await account('POST', all ? '/account/logout-all' : '/account/logout', {})) ?? true);
    onLogout();
  };
  return (
    <header className="top container">
      <nav aria-label="Account">
        <ul><li><a className="brand" href="#/">tokenpad dashboard</a></li></ul>
        {me ? (
          <ul>
            {me.merchants.length > 0 && (
              <li>
                <label>App{' '}
                  <select value={merchantId ?? ''} onChange={(e) => go(e.target.value ? `#/m/${encodeURIComponent(e.target.value)}/overview` : '#/apps')}>
                    {!merchantId && <option value="">Choose an app</option>}
                    {me.merchants.map((m) => <option key={m.merchantId} value={m.merchantId}>{m.name} ({m.role})</option>)}
                  </select>
                </label>
              </li>
            )}
            <li><a href="#/apps">Apps</a></li>
            <li className="email"><span>{me.email}</span></li>
            <li><button type="button" className="secondary" onClick={() => logout(false)}>Log out</button></li>
            <li><button type="button" className="outline secondary" onClick={() => logout(true)}>Log out everywhere</button></li>
          </ul>
        ) : (
          <ul><li><a href="#/login">Log in</a></li><li><a href="#/signup">Sign up</a></li></ul>
        )}
      </nav>
      {act.error !== undefined && <ErrorBox error={act.error} what="Log out" />}
    </header>
  );
}

function Apps({ me, onChange }: { me: Account; onChange: () => void }) {
  const [name, setName] = useState('');
  const act = useAction<AccountMerchantCreated>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await act.run(() => account<AccountMerchantCreated>('POST', '/account/merchants', { name }));
    if (made) {
      rememberPublicKey(made.merchant.merchantId, made.publicKey);
      setName('');
      onChange();
    }
  };
  return (
    <>
      <h1>Your apps</h1>
      {me.merchants.length === 0 ? <p>No app yet: create one.</p> : (
        <ul>{me.merchants.map((m) => (
          <li key={m.merchantId}><a href={`#/m/${encodeURIComponent(m.merchantId)}/overview`}>{m.name}</a> ({m.role})</li>
        ))}</ul>
      )}
      <article>
        <h2>Create app</h2>
        <p>An app is a merchant: its own tokens, holders, keys and settings.</p>
        <form onSubmit={submit}>
          <label>App name<input required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} /></label>
          {act.error !== undefined && <ErrorBox error={act.error} what="Create app" />}
          <button type="submit" aria-busy={act.busy}>Create app</button>
        </form>
      </article>
      {act.result && (
        <>
          <p role="status" className="ok">{act.result.merchant.name} is created. <a href={`#/m/${encodeURIComponent(act.result.merchant.merchantId)}/overview`}>Open it</a>.</p>
          <ShownOnce title="Secret key" value={act.result.secretKey} copyLabel="Copy secret key" />
          <article aria-label="Public key">
            <h3>Public key</h3>
            <p>Safe in a browser; also on the Keys page.</p>
            <code className="secret">{act.result.publicKey}</code>
            <div className="row-actions"><CopyButton text={act.result.publicKey} label="Copy public key" /></div>
          </article>
        </>
      )}
    </>
  );
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState<Account | null | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(undefined);
  const refresh = useCallback(() => {
    currentAccount().then((a) => {
      setMe(a);
      setFailure(undefined);
    }, (e: unknown) => {
      setFailure(e);
      setMe(null);
    });
  }, []);
  useEffect(refresh, [refresh]);

  const [first, second, page, ...rest] = route.path;
  const token = route.query.get('token');
  useEffect(() => {
    const title = first === 'm' ? `${page ?? 'overview'} · ` : first ? `${first} · ` : '';
    document.title = `${title}tokenpad dashboard`;
  }, [first, page]);

  if (me === undefined) return <main className="container"><Loading what="Loading the dashboard" /></main>;

  let body: React.ReactNode;
  switch (first) {
    case 'signup': body = <SignUp />; break;
    case 'login': body = me ? <p>Logged in as {me.email}. <a href="#/apps">Your apps</a></p> : <LogIn onLogin={(a) => {
      setMe(a);
      go(a.merchants[0] ? `#/m/${encodeURIComponent(a.merchants[0].merchantId)}/overview` : '#/apps');
    }} />; break;
    case 'verify': body = <Verify token={token} />; break;
    case 'forgot': body = <Forgot />; break;
    case 'reset': body = <Reset token={token} />; break;
    case 'invite': body = <Invite token={token} account={me} onJoined={refresh} />; break;
    case 'mailbox': body = <Mailbox to={route.query.get('to')} />; break;
    default:
      if (!me) {
        body = <LogIn onLogin={(a) => {
          setMe(a);
          if (!first) go(a.merchants[0] ? `#/m/${encodeURIComponent(a.merchants[0].merchantId)}/overview` : '#/apps');
        }} />;
      } else if (first === 'm' && second) {
        const m = me.merchants.find((x) => x.merchantId === second);
        body = m ? (
          <MerchantProvider key={m.merchantId} merchant={m}>
            <PageNav merchantId={m.merchantId} page={page ?? 'overview'} />
            <MerchantPage page={page ?? 'overview'} rest={rest} query={route.query} />
          </MerchantProvider>
        ) : <p role="alert" className="error"><strong>merchant_not_found</strong>: you are not a member of this app. <a href="#/apps">Your apps</a></p>;
      } else {
        body = <Apps me={me} onChange={refresh} />;
      }
  }
  return (
    <>
      <Header me={me} merchantId={first === 'm' ? second : undefined} onLogout={() => {
        setMe(null);
        go('#/login');
      }} />
      <main className="container">
        {failure !== undefined && <ErrorBox error={failure} what="Loading your account" />}
        {body}
      </main>
    </>
  );
}

const root = createRoot(document.getElementById('root')!);
ready.then(
  () => root.render(<App />),
  (e: unknown) => root.render(<main className="container"><ErrorBox error={e} what="Loading the package's wasm" /></main>),
);
