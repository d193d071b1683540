// Presales: create one (the API's own checks answer), the list, and one presale's progress
// followed live (the package's watchPresale: pushed over GET /live with the public key, read
// again every few seconds without it), its launch steps and participants, launch or refund.
import { useEffect, useState, type FormEvent } from 'react';
import { presaleProgress, serviceNow, TokenpadClient } from '@tokenpad/client';
import type { PresaleMerchant } from '@tokenpad/client/server';
import { useMerchant } from '../merchant';
import { ErrorBox, Show, Table, useAction, useLoad, When } from '../ui';

const STEPS = ['Waiting to launch', 'Swapping USDC', 'Token created', 'Tokens withdrawn', 'Distributing tokens', 'Launched'];

function CreatePresale({ onCreated }: { onCreated: () => void }) {
  const m = useMerchant();
  const [f, setF] = useState({ name: '', description: '', tokenName: '', symbol: '', imageUrl: '', target: '100', startsIn: '0', hours: '24', lockDays: '7', autoLaunch: true });
  const act = useAction<{ id: string }>();
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    setF({ ...f, [k]: e.target.type === 'checkbox' ? (e.target as HTMLInputElement).checked : e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const now = Math.floor(serviceNow() / 1000);
    const start = now + Math.round(Number(f.startsIn) * 60);
    const made = await act.run(() => m.run((s) => s.createPresale({
      name: f.name, description: f.description, startTimestamp: start, endTimestamp: start + Math.round(Number(f.hours) * 3600),
      targetUsdcAmount: f.target, lockDuration: Number(f.lockDays), autoLaunch: f.autoLaunch,
      tokenInfo: { name: f.tokenName, symbol: f.symbol, imageUrl: f.imageUrl },
    } as Parameters<typeof s.createPresale>[0])));
    if (made) onCreated();
  };
  return (
    <article>
      <h2>Create a presale</h2>
      <form onSubmit={submit}>
        <div className="grid-2">
          <label>Presale name<input required value={f.name} onChange={set('name')} /></label>
          <label>Target (USDC)<input required inputMode="decimal" value={f.target} onChange={set('target')} /></label>
          <label>Token name<input required value={f.tokenName} onChange={set('tokenName')} /></label>
          <label>Token symbol<input required value={f.symbol} onChange={set('symbol')} /></label>
          <label>Token image URL<input required type="url" value={f.imageUrl} onChange={set('imageUrl')} /></label>
          <label>Starts in (minutes)<input required type="number" min={0} value={f.startsIn} onChange={set('startsIn')} /></label>
          <label>Runs for (hours)<input required type="number" min={1} value={f.hours} onChange={set('hours')} /></label>
          <label>Buyers' lock (days)<input required type="number" min={0} value={f.lockDays} onChange={set('lockDays')} /></label>
        </div>
        <label>Description<textarea required value={f.description} onChange={set('description')} /></label>
        <label><input type="checkbox" role="switch" checked={f.autoLaunch} onChange={set('autoLaunch')} /> Launch by itself at the target</label>
        {act.error !== undefined && <ErrorBox error={act.error} what="Create presale" />}
        <button type="submit" aria-busy={act.busy}>Create presale</button>
      </form>
      {act.result && <p role="status" className="ok">Presale created: <a href={`#/m/${encodeURIComponent(m.id)}/presales/${act.result.id}`}>open it</a>.</p>}
    </article>
  );
}

export function Presales() {
  const m = useMerchant();
  const list = useLoad(() => m.run((s) => s.listPresales()), [m.id]);
  return (
    <>
      <h1>Presales</h1>
      {m.canWrite && <CreatePresale onCreated={list.reload} />}
      <Show loaded={list} what="the presales">{(ps) => ps.length === 0 ? <p>No presale yet.</p> : (
        <Table caption="Your presales" head={['Presale', 'Status', 'Raised', 'Target', 'Progress', 'Ends']}>
          {ps.map((p) => {
            const v = presaleProgress(p);
            return (
              <tr key={p.id}>
                <td><a href={`#/m/${encodeURIComponent(m.id)}/presales/${p.id}`}>{p.name}</a></td>
                <td>{v.statusLabel}</td>
                <td><data value={v.raised}>{v.raisedFormatted}</data></td>
                <td><data value={v.target}>{v.targetFormatted}</data></td>
                <td>{v.percentFormatted}</td>
                <td><When at={p.endTimestamp} /></td>
              </tr>
            );
          })}
        </Table>
      )}</Show>
    </>
  );
}

/** The merchant form of the presale, read again at every change the live push announces. */
function useLivePresale(id: string) {
  const m = useMerchant();
  const [presale, setPresale] = useState<PresaleMerchant | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [live, setLive] = useState<'push' | 'polling'>('polling');
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () => m.run((s) => s.getMerchantPresale(id)).then((p) => {
      if (!stop) {
        setPresale(p);
        setError(undefined);
      }
    }, (e: unknown) => !stop && setError(e));
    void read();
    let watch: { stop: () => void } | undefined;
    if (m.publicKey) {
      const client = new TokenpadClient({ baseUrl: location.origin, publicKey: m.publicKey });
      // onLive: the socket is open (pushes come) or closed (the watch reads by itself).
      watch = client.watchPresale(id, (p) => {
        if (!stop && p) void read();
      }, { onLive: (up) => !stop && setLive(up ? 'push' : 'polling') });
    }
    // Without the public key (or between pushes), the merchant form is read every 3 s.
    const poll = () => {
      timer = setTimeout(() => {
        void read().finally(() => !stop && poll());
      }, 3000);
    };
    poll();
    return () => {
      stop = true;
      clearTimeout(timer);
      watch?.stop();
    };
  }, [id, m.id, m.publicKey]); // once per presale and credential; run() is stable
  return { presale, error, live };
}

export function PresaleDetail({ id }: { id: string }) {
  const m = useMerchant();
  const { presale, error, live } = useLivePresale(id);
  const resolve = useAction<unknown>();
  const [, tick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, []);
  if (!presale) return error !== undefined ? <ErrorBox error={error} what="Loading the presale" /> : <p aria-busy="true">Loading the presale…</p>;
  const v = presaleProgress(presale);
  const c = v.completion;
  return (
    <>
      <p><a href={`#/m/${encodeURIComponent(m.id)}/presales`}>All presales</a></p>
      <h1>{v.name}</h1>
      <p>{v.description}</p>
      <p>Token {v.tokenName} ({v.tokenSymbol}) · {live === 'push' ? 'live (pushed)' : 'refreshed every 3 s'}</p>
      {error !== undefined && <ErrorBox error={error} what="Refreshing the presale" />}
      <dl className="figures">
        <div><dt>Status</dt><dd>{v.statusLabel}: {v.statusDetail}</dd></div>
        <div><dt>Raised</dt><dd><data value={v.raised}>{v.raisedFormatted}</data> of <data value={v.target}>{v.targetFormatted}</data></dd></div>
        <div><dt>Launch threshold</dt><dd><data value={v.thresholdAmount}>{v.thresholdAmountFormatted}</data> ({v.thresholdReached ? 'reached' : 'not reached'})</dd></div>
        <div><dt>Time</dt><dd>{v.timeLabel}</dd></div>
        <div><dt>Participants</dt><dd>{v.participantCount}</dd></div>
      </dl>
      <progress value={v.percent} max={100} aria-label="Raised against the target" />
      <h2>Launch steps</h2>
      {c ? (
        <>
          <ol>{STEPS.map((s, i) => <li key={s}>{s}{c.stepIndex !== null && i <= c.stepIndex ? ' ✓' : ''}</li>)}</ol>
          <p role="status">{c.label}{c.retryCount > 0 ? ` (retried ${c.retryCount} times)` : ''}{c.lastError ? `: ${c.lastError}` : ''}</p>
        </>
      ) : <p>Not launching yet.</p>}
      {m.canWrite && !c?.done && (v.thresholdReached || (v.phase === 'closed' && v.status !== 'completed')) && (
        <div className="row-actions">
          <button type="button" aria-busy={resolve.busy} onClick={() => void resolve.run(() => m.run((s) => s.resolvePresale({ presaleId: id })))}>
            {v.thresholdReached ? 'Launch now' : 'Refund buyers'}
          </button>
        </div>
      )}
      {resolve.error !== undefined && <ErrorBox error={resolve.error} what="Resolve" />}
      {v.participants.length > 0 && (
        <Table caption="Participants" head={['Holder', 'Paid (USDC)', 'Token share']}>
          {v.participants.map((p) => (
            <tr key={p.address}><td>{p.id}</td><td><data value={p.usdcAmount}>{p.usdcAmountFormatted}</data></td><td>{p.tokenPercentageFormatted}</td></tr>
          ))}
        </Table>
      )}
    </>
  );
}
