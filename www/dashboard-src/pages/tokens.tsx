// Tokens: create one (the Reward Allocation switch, the pool and merchant allocation options),
// its job followed live, the list; a token's supply split, price, pool and holders.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { tokenSupply } from '@tokenpad/client';
import type { Job, Token } from '@tokenpad/client/server';
import { useMerchant } from '../merchant';
import { Amount, ErrorBox, Explorer, Show, Table, useAction, useLoad, When } from '../ui';

const NETWORKS = ['base', 'base-sepolia', 'sepolia', 'local'] as const;

function JobStatus({ jobId, onDone }: { jobId: string; onDone: () => void }) {
  const m = useMerchant();
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const j = await m.run((s) => s.getJob(jobId));
        if (stop) return;
        setJob(j);
        setError(undefined);
        if (j.status === 'success' || j.status === 'failed') {
          onDone();
          return;
        }
      } catch (e) {
        if (!stop) setError(e);
      }
      if (!stop) timer = setTimeout(poll, 1000);
    };
    void poll();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [jobId]); // once per job; the merchant context is stable for a page
  const link = job?.data ? `#/m/${encodeURIComponent(m.id)}/tokens/${job.data.address}` : null;
  return (
    <article aria-label="Token job">
      <p role="status">Job <code>{jobId}</code>: <strong>{job?.status ?? 'pending'}</strong>
        {job?.waiting ? ` (${job.waiting})` : ''}{job?.error ? `: ${job.error}` : ''}</p>
      {job?.status === 'pending' && <progress aria-label="Token job in progress" />}
      {link && job?.data && <p><a href={link}>Open {job.data.name}</a></p>}
      {error !== undefined && <ErrorBox error={error} what="Reading the job" />}
    </article>
  );
}

function CreateToken({ onCreated }: { onCreated: () => void }) {
  const m = useMerchant();
  const [f, setF] = useState({ name: '', symbol: '', totalSupply: '', imageUrl: '', network: 'base', merchantAddress: '', canDistribute: true, canLP: true, canAirdrop: false });
  const act = useAction<{ jobId: string }>();
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setF({ ...f, [k]: e.target.type === 'checkbox' ? (e.target as HTMLInputElement).checked : e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.run(() => m.run((s) => s.createToken({
      name: f.name, symbol: f.symbol, network: f.network as (typeof NETWORKS)[number],
      canDistribute: f.canDistribute, canLP: f.canLP, canAirdrop: f.canAirdrop,
      ...(f.totalSupply ? { totalSupply: f.totalSupply } : {}),
      ...(f.imageUrl ? { imageUrl: f.imageUrl } : {}),
      ...(f.merchantAddress ? { merchantAddress: f.merchantAddress } : {}),
    })));
  };
  return (
    <article>
      <h2>Create a token</h2>
      <form onSubmit={submit}>
        <div className="grid-2">
          <label>Name<input required maxLength={64} value={f.name} onChange={set('name')} /></label>
          <label>Symbol<input required maxLength={11} value={f.symbol} onChange={set('symbol')} /></label>
          <label>Total supply<input inputMode="decimal" placeholder="1000000000" value={f.totalSupply} onChange={set('totalSupply')} /></label>
          <label>Network<select value={f.network} onChange={set('network')}>{NETWORKS.map((n) => <option key={n}>{n}</option>)}</select></label>
          <label>Image URL<input type="url" value={f.imageUrl} onChange={set('imageUrl')} /></label>
          <label>Merchant allocation address<input placeholder="0x… (the merchant supply goes here)" value={f.merchantAddress} onChange={set('merchantAddress')} /></label>
        </div>
        <fieldset>
          <legend>Options</legend>
          <label><input type="checkbox" role="switch" checked={f.canDistribute} onChange={set('canDistribute')} /> Reward Allocation</label>
          <label><input type="checkbox" role="switch" checked={f.canLP} onChange={set('canLP')} /> Liquidity pool allocation</label>
          <label><input type="checkbox" role="switch" checked={f.canAirdrop} onChange={set('canAirdrop')} /> Airdrops</label>
        </fieldset>
        {act.error !== undefined && <ErrorBox error={act.error} what="Create token" />}
        <button type="submit" aria-busy={act.busy} disabled={!m.canWrite}>Create token</button>
      </form>
      {act.result && <JobStatus key={act.result.jobId} jobId={act.result.jobId} onDone={onCreated} />}
    </article>
  );
}

export function Tokens() {
  const m = useMerchant();
  const list = useLoad(() => m.run((s) => s.listTokens()), [m.id]);
  return (
    <>
      <h1>Tokens</h1>
      {m.canWrite && <CreateToken onCreated={list.reload} />}
      <Show loaded={list} what="the tokens">{(tokens) => tokens.length === 0 ? <p>No token yet.</p> : (
        <Table caption="Your tokens" head={['Name', 'Symbol', 'Reward Allocation', 'Holders', 'Price (USD)', 'Origin', 'Created']}>
          {tokens.map((t) => (
            <tr key={t.address}>
              <td><a href={`#/m/${encodeURIComponent(m.id)}/tokens/${t.address}`}>{t.name}</a></td>
              <td>{t.symbol}</td>
              <td>{t.canDistribute ? 'On' : 'Off'}</td>
              <td>{t.holdersCount}</td>
              <td><Amount value={t.price} /></td>
              <td>{t.origin}</td>
              <td><When at={t.createdAt} /></td>
            </tr>
          ))}
        </Table>
      )}</Show>
    </>
  );
}

const PAGE = 20;

function HoldersTable({ token }: { token: Token }) {
  const m = useMerchant();
  const [q, setQ] = useState('');
  const [page, setPage] = useState(0);
  const rows = useMemo(() => {
    const needle = q.trim().toLowerCase();
    return needle ? token.holders.filter((h) => h.id.toLowerCase().includes(needle) || h.address.toLowerCase().includes(needle)) : token.holders;
  }, [q, token]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, page * PAGE + PAGE);
  return (
    <section aria-labelledby="holders-h">
      <h2 id="holders-h">Holders ({token.holdersCount})</h2>
      <form role="search" onSubmit={(e) => e.preventDefault()}>
        <label>Search holders<input type="search" placeholder="userId or address" value={q} onChange={(e) => {
          setQ(e.target.value);
          setPage(0);
        }} /></label>
      </form>
      {token.holdersCount > token.holders.length && <p>The {token.holders.length} largest of {token.holdersCount} holders are listed.</p>}
      <Table caption={`Holders of ${token.symbol}`} head={['Holder', 'Address', 'Balance', 'Value (USD)']}>
        {shown.map((h) => (
          <tr key={h.address}>
            <td><a href={`#/m/${encodeURIComponent(m.id)}/holders?q=${encodeURIComponent(h.id)}`}>{h.id}</a></td>
            <td><Explorer network={token.network} kind="address" id={h.address} /></td>
            <td><Amount value={h.balance} symbol={token.symbol} /></td>
            <td><Amount value={h.value} digits={2} /></td>
          </tr>
        ))}
      </Table>
      {rows.length === 0 && <p>No holder matches.</p>}
      <nav aria-label="Holder pages" className="row-actions">
        <button type="button" className="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>Previous page</button>
        <span>Page {page + 1} of {pages}</span>
        <button type="button" className="secondary" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>Next page</button>
      </nav>
    </section>
  );
}

function OpenPool({ token, onDone }: { token: Token; onDone: () => void }) {
  const m = useMerchant();
  const [price, setPrice] = useState('0.01');
  const [amount, setAmount] = useState('');
  const act = useAction<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() => m.run((s) => s.createLiquidity(token.address, { initialStartingPrice: price, ...(amount ? { amount } : {}) })));
    if (r) onDone();
  };
  return (
    <form onSubmit={submit}>
      <h3>Open its pool</h3>
      <div className="grid-2">
        <label>Starting price (USD)<input required inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} /></label>
        <label>Tokens from the liquidity reserve<input inputMode="decimal" placeholder="all of it" value={amount} onChange={(e) => setAmount(e.target.value)} /></label>
      </div>
      {act.error !== undefined && <ErrorBox error={act.error} what="Open pool" />}
      <button type="submit" aria-busy={act.busy}>Open pool</button>
    </form>
  );
}

export function TokenDetail({ address }: { address: string }) {
  const m = useMerchant();
  const data = useLoad(() => m.run((s) => s.getToken(address, { holdersLimit: 1000 })), [m.id, address]);
  const toggle = useAction<Token>();
  return (
    <Show loaded={data} what="the token">{(t) => {
      const v = tokenSupply(t);
      return (
        <>
          <p><a href={`#/m/${encodeURIComponent(m.id)}/tokens`}>All tokens</a></p>
          <h1>{t.name} ({t.symbol})</h1>
          <p>Address <Explorer network={t.network} kind="address" id={t.address} /> on {t.network}; {t.origin}, created <When at={t.createdAt} />.</p>
          <label>
            <input type="checkbox" role="switch" checked={t.canDistribute} disabled={!m.canWrite || toggle.busy}
              onChange={async (e) => {
                const next = e.target.checked;
                if (await toggle.run(() => m.run((s) => s.setRewardAllocation(t.address, next)))) data.reload();
              }} /> Reward Allocation
          </label>
          {toggle.error !== undefined && <ErrorBox error={toggle.error} what="Reward Allocation" />}
          <h2>Supply</h2>
          <dl className="figures">
            <div><dt>Total supply</dt><dd><data value={v.totalSupply}>{v.totalSupplyFormatted}</data></dd></div>
            <div><dt>Distributed</dt><dd><data value={v.distributed}>{v.distributedFormatted}</data> ({v.distributedPercentFormatted})</dd></div>
            <div><dt>App supply left</dt><dd><data value={v.remainingAppSupply}>{v.remainingAppSupplyFormatted}</data> ({v.remainingPercentFormatted})</dd></div>
            <div><dt>Merchant supply</dt><dd><data value={v.merchantSupply}>{v.merchantSupplyFormatted}</data></dd></div>
            <div><dt>Liquidity reserve</dt><dd><data value={v.liquiditySupply}>{v.liquiditySupplyFormatted}</data></dd></div>
            <div><dt>Price (USD)</dt><dd>{v.priceFormatted ?? 'No price yet'}</dd></div>
          </dl>
          <Table caption="Supply split" head={['Part', 'Amount', 'Share']}>
            {v.split.map((p) => (
              <tr key={p.key}><td>{p.label}</td><td><data value={p.amount}>{p.amountFormatted}</data></td>
                <td><progress value={p.percent} max={100} aria-label={`${p.label} share`} /> {p.percentFormatted}</td></tr>
            ))}
          </Table>
          <h2>Pool</h2>
          {v.pool ? (
            <dl className="figures">
              <div><dt>Pool</dt><dd><Explorer network={t.network} kind="address" id={v.pool.address} /></dd></div>
              <div><dt>Tokens in the pool</dt><dd><data value={v.pool.tokenReserve}>{v.pool.tokenReserveFormatted}</data></dd></div>
              <div><dt>USDC in the pool</dt><dd><data value={v.pool.usdcReserve}>{v.pool.usdcReserveFormatted}</data></dd></div>
              <div><dt>Pool price</dt><dd>{v.pool.priceFormatted}</dd></div>
              <div><dt>Fee</dt><dd>{v.pool.feeFormatted}</dd></div>
              <div><dt>Status</dt><dd>{t.pool?.status ?? '—'}</dd></div>
            </dl>
          ) : t.canLP ? (m.canWrite ? <OpenPool token={t} onDone={data.reload} /> : <p>No pool yet.</p>) : <p>This token has no pool allocation (created with the liquidity pool allocation off).</p>}
          <HoldersTable token={t} />
        </>
      );
    }}</Show>
  );
}

