// Memecoin and airdrop deployments: deploy one, follow its status, the deployed tokens.
import { useEffect, useState, type FormEvent } from 'react';
import type { DeploymentStatus } from '@tokenpad/client/server';
import { useMerchant } from '../merchant';
import { Amount, ErrorBox, Explorer, Show, Table, useAction, useLoad, When } from '../ui';

function Status({ kind, id, onDone }: { kind: 'memecoin' | 'airdrop'; id: string; onDone: () => void }) {
  const m = useMerchant();
  const [st, setSt] = useState<DeploymentStatus | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const s = await m.run((c) => (kind === 'memecoin' ? c.getMemecoinStatus(id) : c.getAirdropStatus(id)));
        if (stop) return;
        setSt(s);
        if (s.data.status === 'success' || s.data.status === 'failed') return onDone();
      } catch (e) {
        if (!stop) setError(e);
      }
      if (!stop) timer = setTimeout(poll, 1500);
    };
    void poll();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [kind, id]); // once per deployment
  const d = st?.data;
  return (
    <p role="status">Deployment <code>{id}</code>: <strong>{d?.status ?? 'pending'}</strong>{d?.waiting ? ` (${d.waiting})` : ''}{d?.error ? `: ${d.error}` : ''}
      {d?.serviceBuildUrl && <> · <a href={d.serviceBuildUrl}>overview page</a></>}
      {error !== undefined && <ErrorBox error={error} what="Reading the deployment" />}</p>
  );
}

function Deploy({ kind, onDone }: { kind: 'memecoin' | 'airdrop'; onDone: () => void }) {
  const m = useMerchant();
  const [f, setF] = useState({ name: '', symbol: '', totalSupply: '1000000', initialPrice: '0.0001', network: 'base', marketplace: true, addresses: '', perAddress: '100' });
  const act = useAction<{ id: string }>();
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) =>
    setF({ ...f, [k]: e.target.type === 'checkbox' ? (e.target as HTMLInputElement).checked : e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const base = { name: f.name, symbol: f.symbol, totalSupply: f.totalSupply, initialPrice: f.initialPrice, network: f.network as 'base', marketplace: f.marketplace };
    void act.run(() => m.run((s) => kind === 'memecoin' ? s.createMemecoin(base)
      : s.createAirdrop({ ...base, airdrop: { addresses: f.addresses.split(/[\s,]+/).filter(Boolean), supply: f.perAddress } as never })));
  };
  const title = kind === 'memecoin' ? 'Deploy a memecoin' : 'Deploy an airdrop';
  return (
    <article>
      <h2>{title}</h2>
      <form onSubmit={submit} aria-label={title}>
        <div className="grid-2">
          <label>Name<input required value={f.name} onChange={set('name')} /></label>
          <label>Symbol<input required value={f.symbol} onChange={set('symbol')} /></label>
          <label>Total supply<input required inputMode="decimal" value={f.totalSupply} onChange={set('totalSupply')} /></label>
          <label>Initial price (USD)<input required inputMode="decimal" value={f.initialPrice} onChange={set('initialPrice')} /></label>
          <label>Network<select value={f.network} onChange={set('network')}>{['base', 'base-sepolia', 'sepolia', 'local'].map((n) => <option key={n}>{n}</option>)}</select></label>
          {kind === 'airdrop' && <label>Tokens per address<input required inputMode="decimal" value={f.perAddress} onChange={set('perAddress')} /></label>}
        </div>
        {kind === 'airdrop' && <label>Addresses (one per line)<textarea required value={f.addresses} onChange={set('addresses')} /></label>}
        <label><input type="checkbox" role="switch" checked={f.marketplace} onChange={set('marketplace')} /> List on the marketplace</label>
        {act.error !== undefined && <ErrorBox error={act.error} what={title} />}
        <button type="submit" aria-busy={act.busy}>{kind === 'memecoin' ? 'Deploy memecoin' : 'Deploy airdrop'}</button>
      </form>
      {act.result && <Status key={act.result.id} kind={kind} id={act.result.id} onDone={onDone} />}
    </article>
  );
}

export function Deployments() {
  const m = useMerchant();
  const list = useLoad(() => m.run((s) => s.listTokens()), [m.id]);
  return (
    <>
      <h1>Deployments</h1>
      {m.canWrite && <div className="grid-2"><Deploy kind="memecoin" onDone={list.reload} /><Deploy kind="airdrop" onDone={list.reload} /></div>}
      <Show loaded={list} what="the deployments">{(tokens) => {
        const deployed = tokens.filter((t) => t.origin === 'memecoin' || t.origin === 'airdrop');
        return deployed.length === 0 ? <p>No memecoin or airdrop deployed yet.</p> : (
          <Table caption="Deployed tokens" head={['Token', 'Kind', 'Network', 'Total supply', 'Price (USD)', 'Address', 'Created']}>
            {deployed.map((t) => (
              <tr key={t.address}>
                <td><a href={`#/m/${encodeURIComponent(m.id)}/tokens/${t.address}`}>{t.name} ({t.symbol})</a></td>
                <td>{t.origin}</td>
                <td>{t.network}</td>
                <td><Amount value={t.totalSupply} /></td>
                <td><Amount value={t.price} /></td>
                <td><Explorer network={t.network} kind="address" id={t.address} /></td>
                <td><When at={t.createdAt} /></td>
              </tr>
            ))}
          </Table>
        );
      }}</Show>
    </>
  );
}
