// The account pages: sign up, log in, verify, forgot / reset password, accept an invite, and
// the local mailbox (local runs only). Links in mails land on #/verify, #/reset and #/invite.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { account, hasLocalMailbox, type Account, type AccountMerchant, type Mailbox } from '../api';
import { ErrorBox, Loading, Show, useAction, useLoad, When } from '../ui';

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <article>
      <header><h1>{title}</h1></header>
      {children}
    </article>
  );
}

function MailboxHint({ email }: { email: string }) {
  const local = useLoad(hasLocalMailbox, []);
  if (!local.data) return null;
  return <p>This is a local run: the mail is in the <a href={`#/mailbox?to=${encodeURIComponent(email)}`}>local mailbox</a>.</p>;
}

export function SignUp() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction<{ status: string }>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.run(() => account('POST', '/account/signup', { email, password }));
  };
  return (
    <Card title="Sign up">
      {act.result ? (
        <>
          <p role="status" className="ok">Check your email: we sent a link to verify {email}.</p>
          <MailboxHint email={email} />
        </>
      ) : (
        <form onSubmit={submit}>
          <label>Email<input type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
          <label>Password<input type="password" name="password" autoComplete="new-password" required minLength={10} maxLength={128}
            aria-describedby="pw-help" value={password} onChange={(e) => setPassword(e.target.value)} /></label>
          <small id="pw-help">At least 10 characters.</small>
          {act.error !== undefined && <ErrorBox error={act.error} what="Sign up" />}
          <button type="submit" aria-busy={act.busy}>Sign up</button>
        </form>
      )}
      <p>Have an account? <a href="#/login">Log in</a></p>
    </Card>
  );
}

export function LogIn({ onLogin }: { onLogin: (a: Account) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction<Account>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const a = await act.run(() => account<Account>('POST', '/account/login', { email, password }));
    if (a) onLogin(a);
  };
  return (
    <Card title="Log in">
      <form onSubmit={submit}>
        <label>Email<input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
        <label>Password<input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} /></label>
        {act.error !== undefined && <ErrorBox error={act.error} what="Log in" />}
        <button type="submit" aria-busy={act.busy}>Log in</button>
      </form>
      <p><a href="#/forgot">Forgot your password?</a> · No account yet? <a href="#/signup">Sign up</a></p>
    </Card>
  );
}

/** A link's one-time token, posted once however often React runs the effect. */
const posted = new Map<string, Promise<unknown>>();
function useLinkToken<T>(path: string, token: string | null, extra: Record<string, unknown> = {}, auto = true) {
  const [state, setState] = useState<{ result?: T; error?: unknown; busy: boolean }>({ busy: auto && !!token });
  const go = useRef(() => {});
  go.current = () => {
    if (!token) return;
    const key = `${path} ${token}`;
    let p = posted.get(key) as Promise<T> | undefined;
    if (!p) {
      p = account<T>('POST', path, { token, ...extra });
      posted.set(key, p);
      p.catch(() => posted.delete(key));
    }
    setState({ busy: true });
    p.then((result) => setState({ result, busy: false }), (error: unknown) => setState({ error, busy: false }));
  };
  useEffect(() => {
    if (auto) go.current();
  }, [auto, token]);
  return { ...state, go: () => go.current() };
}

export function Verify({ token }: { token: string | null }) {
  const v = useLinkToken<{ email: string }>('/account/verify', token);
  return (
    <Card title="Verify your email">
      {!token && <p role="alert" className="error"><strong>invalid_link</strong>: this link has no token.</p>}
      {v.busy && <Loading what="Verifying" />}
      {v.error !== undefined && <ErrorBox error={v.error} what="Verifying" />}
      {v.result && <p role="status" className="ok">{v.result.email} is verified. You can <a href="#/login">log in</a> now.</p>}
    </Card>
  );
}

export function Forgot() {
  const [email, setEmail] = useState('');
  const act = useAction<unknown>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.run(async () => (await account('POST', '/account/password-reset', { email })) ?? true);
  };
  return (
    <Card title="Reset your password">
      {act.result !== undefined ? (
        <><p role="status" className="ok">If {email} has an account, a link to reset its password is on its way.</p><MailboxHint email={email} /></>
      ) : (
        <form onSubmit={submit}>
          <label>Email<input type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
          {act.error !== undefined && <ErrorBox error={act.error} what="Reset" />}
          <button type="submit" aria-busy={act.busy}>Send reset link</button>
        </form>
      )}
    </Card>
  );
}

export function Reset({ token }: { token: string | null }) {
  const [password, setPassword] = useState('');
  const act = useAction<{ email: string }>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.run(() => account('POST', '/account/password-reset/confirm', { token, password }));
  };
  return (
    <Card title="Choose a new password">
      {!token && <p role="alert" className="error"><strong>invalid_link</strong>: this link has no token.</p>}
      {act.result ? (
        <p role="status" className="ok">The password of {act.result.email} is changed and every session ended. <a href="#/login">Log in</a>.</p>
      ) : (
        <form onSubmit={submit}>
          <label>New password<input type="password" autoComplete="new-password" required minLength={10} maxLength={128}
            value={password} onChange={(e) => setPassword(e.target.value)} /></label>
          {act.error !== undefined && <ErrorBox error={act.error} what="Reset" />}
          <button type="submit" aria-busy={act.busy} disabled={!token}>Set password</button>
        </form>
      )}
    </Card>
  );
}

export function Invite({ token, account: me, onJoined }: { token: string | null; account: Account | null; onJoined: () => void }) {
  const act = useAction<AccountMerchant>();
  if (!me) {
    return <Card title="Accept an invite"><p>Log in (or sign up) with the invited email first, then open the link again.</p>
      <p><a href="#/login">Log in</a> · <a href="#/signup">Sign up</a></p></Card>;
  }
  const accept = async () => {
    const m = await act.run(() => account<AccountMerchant>('POST', '/account/invites/accept', { token }));
    if (m) onJoined();
  };
  return (
    <Card title="Accept an invite">
      {act.result ? (
        <p role="status" className="ok">You are now {act.result.role} of {act.result.name}. <a href={`#/m/${encodeURIComponent(act.result.merchantId)}/overview`}>Open it</a>.</p>
      ) : (
        <>
          <p>Accept as {me.email}.</p>
          {act.error !== undefined && <ErrorBox error={act.error} what="Accepting" />}
          <button type="button" onClick={accept} aria-busy={act.busy} disabled={!token}>Accept invite</button>
        </>
      )}
    </Card>
  );
}

export function Mailbox({ to: initial }: { to: string | null }) {
  const [email, setEmail] = useState(initial ?? '');
  const [to, setTo] = useState(initial ?? '');
  const box = useLoad(async () => (to ? account<Mailbox>('GET', `/account/dev-mailbox?to=${encodeURIComponent(to)}`) : { messages: [] }), [to]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (email === to) box.reload();
    setTo(email);
  };
  return (
    <Card title="Local mailbox">
      <p>Local runs only: the mail the service would have sent, newest first.</p>
      <form onSubmit={submit} role="search">
        <label>Email<input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
        <button type="submit">Show mail</button>
      </form>
      {to && <Show loaded={box} what="the mailbox">{(d) => d.messages.length === 0 ? <p>No mail for {to}.</p> : (
        <>{d.messages.map((m, i) => (
          <article key={`${m.sentAt}-${i}`} aria-label={m.subject}>
            <h2>{m.subject}</h2>
            <p>To {m.to}, <When at={m.sentAt} /></p>
            <pre className="mail">{m.text}</pre>
            {m.links.length > 0 && <ul>{m.links.map((l) => <li key={l}><a href={l}>{linkLabel(l)}</a></li>)}</ul>}
          </article>
        ))}</>
      )}</Show>}
    </Card>
  );
}

function linkLabel(link: string): string {
  if (link.includes('#/verify')) return 'Verify email';
  if (link.includes('#/reset')) return 'Reset password';
  if (link.includes('#/invite')) return 'Accept invite';
  return link;
}
