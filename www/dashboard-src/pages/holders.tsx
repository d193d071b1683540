// Holders: find one by userId or address; balances, locks and presale positions (the
// package's holderPortfolio), history page by page, and revoking its sessions.
import { useState, type FormEvent } from 'react';
import { holderPortfolio } from '@tokenpad/client';
import type { TokenpadServer, TxRecord } from '@tokenpad/client/server';
import { useMerchant } from '../merchant';
import { Amount, ErrorBox, Explorer, Show, Table, useAction, useLoad, When } from '../ui';

function History({ userId }: { userId: string }) {
  const m = useMerchant();
  const [pages, setPages] = useState<string[]>(['']);
  const cursor = pages[pages.length - 1];
  const page = useLoad(() => m.run((s) => s.listHolderTransactions(userId, { limit: 20, ...(cursor ? { cursor } : {}) })), [m.id, userId, cursor]);
  return (
    <section aria-labelledby="history-h">
      <h2 id="history-h">History</h2>
      <Show loaded={page} what="the history">{(p) => (
        <>
          {p.data.length === 0 ? <p>No movement yet.</p> : (
            <Table caption={`History of ${userId}, newest first`} head={['When', 'Type', 'Amount', 'From', 'To', 'Settlement', 'Transaction']}>
              {p.data.map((r: TxRecord) => (
                <tr key={r.id}>
                  <td><When at={r.timestamp} /></td>
                  <td>{r.type}</td>
                  <td><Amount value={r.amount} symbol={r.symbol} /></td>
                  <td><Explorer kind="address" id={r.from} /></td>
                  <td><Explorer kind="address" id={r.to} /></td>
                  <td>{r.chainStatus}{r.failureReason ? `: ${r.failureReason}` : ''}</td>
                  <td><Explorer kind="tx" id={r.transactionHash} /></td>
                </tr>
              ))}
            </Table>
          )}
          <div className="row-actions">
            <button type="button" className="secondary" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>Newer</button>
            <button type="button" className="secondary" disabled={!p.has_more || !p.next_cursor} onClick={() => p.next_cursor && setPages([...pages, p.next_cursor])}>Older</button>
          </div>
        </>
      )}</Show>
    </section>
  );
}

/**
 * A wallet address is found among the holders of the merchant's tokens (the API reads a holder
 * by its userId): its userId, or a `holder_not_found` error naming the address.
 */
async function userIdOf(s: TokenpadServer, q: string): Promise<string> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(q)) return q;
  const tokens = await s.listTokens();
  for (const t of tokens) {
    const full = await s.getToken(t.address, { holdersLimit: 1000 });
    const h = full.holders.find((x) => x.address.toLowerCase() === q.toLowerCase());
    if (h) return h.id;
  }
  throw Object.assign(new Error(`No holder of your tokens has the address ${q}`), { code: 'holder_not_found' });
}

function Holder({ id }: { id: string }) {
  const m = useMerchant();
  const holder = useLoad(() => m.run(async (s) => s.getHolder(await userIdOf(s, id))), [m.id, id]);
  const revoke = useAction<{ revoked: number }>();
  return (
    <Show loaded={holder} what="the holder">{(h) => {
      const v = holderPortfolio(h);
      return (
        <>
          <h2>{v.userId}</h2>
          <p>Wallet <Explorer kind="address" id={v.address} /> · total value <data value={v.totalValue}>{v.totalValueFormatted}</data>
            {v.unpricedCount > 0 ? ` (${v.unpricedCount} unpriced)` : ''} · locked <data value={v.lockedValue}>{v.lockedValueFormatted}</data>
            {v.nextUnlock ? ` · next unlock in ${v.nextUnlock.label}` : ''}</p>
          {v.rows.length === 0 ? <p>No balance yet.</p> : (
            <Table caption={`Balances of ${v.userId}`} head={['Token', 'Status', 'Balance', 'Value (USD)', 'Unlocks / ends']}>
              {v.rows.map((r) => (
                <tr key={r.key}>
                  <td>{r.name} ({r.symbol})</td>
                  <td>{r.status}{r.progressFormatted ? ` · ${r.progressFormatted}` : ''}</td>
                  <td><data value={r.balance}>{r.balanceFormatted}</data></td>
                  <td>{r.priced ? <data value={r.value}>{r.valueFormatted}</data> : 'No price yet'}</td>
                  <td>{r.countdown ? `${r.countdown.label} (${(r.unlockDate ?? r.endDate ?? '').slice(0, 10)})` : '—'}</td>
                </tr>
              ))}
            </Table>
          )}
          {m.canWrite && (
            <div className="row-actions">
              <button type="button" className="secondary" aria-busy={revoke.busy}
                onClick={() => void revoke.run(() => m.run((s) => s.revokeSessions(v.userId)))}>Revoke sessions</button>
              {revoke.result && <span role="status">{revoke.result.revoked} session(s) revoked.</span>}
            </div>
          )}
          {revoke.error !== undefined && <ErrorBox error={revoke.error} what="Revoke sessions" />}
          <History userId={v.userId} />
        </>
      );
    }}</Show>
  );
}

export function Holders({ initial }: { initial: string }) {
  const [q, setQ] = useState(initial);
  const [id, setId] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setId(q.trim());
  };
  return (
    <>
      <h1>Holders</h1>
      <form role="search" onSubmit={submit}>
        <label>User ID or address<input required value={q} onChange={(e) => setQ(e.target.value)} /></label>
        <button type="submit">Find holder</button>
      </form>
      {id && <Holder key={id} id={id} />}
    </>
  );
}
