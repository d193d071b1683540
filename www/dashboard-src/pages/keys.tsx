// Keys: the public key, the secret keys (named, last four characters, made, last used), a new
// secret key shown once with a copy button, Roll key (the old one keeps working for the grace
// hours picked, 0 to 24) and Revoke (stops at once). The routes: docs/keys.md.
import { useRef, useState, type FormEvent } from 'react';
import type { ApiKey } from '@tokenpad/client/server';
import { useMerchant } from '../merchant';
import { CopyButton, ErrorBox, Show, ShownOnce, Table, useAction, useLoad, When } from '../ui';

type Pending = { kind: 'roll' | 'revoke'; key: ApiKey } | null;

function Confirm({ pending, onClose, onDone }: { pending: Pending; onClose: () => void; onDone: (shown?: { value: string; kind: string }) => void }) {
  const m = useMerchant();
  const [grace, setGrace] = useState('24');
  const act = useAction<unknown>();
  const ref = useRef<HTMLDialogElement>(null);
  if (!pending) return null;
  const { kind, key } = pending;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (kind === 'roll') {
      const r = await act.run(() => m.run((s) => s.rollKey(key.id, { graceHours: Number(grace) })));
      if (r) onDone({ value: (r as { apiKey: string }).apiKey, kind: key.kind });
    } else if (await act.run(() => m.run((s) => s.revokeKey(key.id)))) {
      onDone();
    }
  };
  const title = kind === 'roll' ? `Roll ${key.name}` : `Revoke ${key.name}`;
  return (
    <dialog open ref={ref} aria-labelledby="confirm-h">
      <article>
        <h2 id="confirm-h">{title} (…{key.last4 ?? '????'})</h2>
        <form onSubmit={submit}>
          {kind === 'roll' ? (
            <>
              <p>A new {key.kind} key replaces it, shown once. The old one keeps working for the grace hours, then stops (0: at once).</p>
              <label>Grace hours<input type="number" min={0} max={24} required autoFocus value={grace} onChange={(e) => setGrace(e.target.value)} /></label>
            </>
          ) : <p>It stops working at once, everywhere, within seconds.</p>}
          {act.error !== undefined && <ErrorBox error={act.error} what={kind === 'roll' ? 'Roll key' : 'Revoke'} />}
          <div className="row-actions">
            <button type="submit" aria-busy={act.busy}>{kind === 'roll' ? 'Roll key' : 'Revoke'}</button>
            <button type="button" className="secondary" autoFocus={kind === 'revoke'} onClick={onClose}>Cancel</button>
          </div>
        </form>
      </article>
    </dialog>
  );
}

export function Keys() {
  const m = useMerchant();
  const list = useLoad(() => m.run((s) => s.listKeys()), [m.id]);
  const [name, setName] = useState('');
  const [pending, setPending] = useState<Pending>(null);
  const [shown, setShown] = useState<{ value: string; kind: string } | null>(null);
  const act = useAction<unknown>();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() => m.run((s) => s.createKey({ name })));
    if (r) {
      setShown({ value: (r as { apiKey: string }).apiKey, kind: 'secret' });
      setName('');
      list.reload();
    }
  };
  return (
    <>
      <h1>Keys</h1>
      <section aria-labelledby="pk-h">
        <h2 id="pk-h">Public key</h2>
        {m.publicKey ? (
          <>
            <p>For browsers (public reads): safe to ship.</p>
            <code className="secret">{m.publicKey}</code>
            <div className="row-actions"><CopyButton text={m.publicKey} label="Copy public key" /></div>
          </>
        ) : <p>The public key is not known yet: a public key made before keys were listed whole (tokenpad 0.3.0 or earlier) is shown after its first use, or roll it below (with grace hours, so apps using the old one keep working).</p>}
      </section>
      {shown && (
        <ShownOnce title={shown.kind === 'public' ? 'New public key' : 'New secret key'} value={shown.value}
          copyLabel={shown.kind === 'public' ? 'Copy new public key' : 'Copy secret key'} />
      )}
      {m.canWrite && (
        <article>
          <h2>Create a secret key</h2>
          <form onSubmit={create}>
            <label>Key name<input required maxLength={64} placeholder="Orders service" value={name} onChange={(e) => setName(e.target.value)} /></label>
            {act.error !== undefined && <ErrorBox error={act.error} what="Create secret key" />}
            <button type="submit" aria-busy={act.busy}>Create secret key</button>
          </form>
        </article>
      )}
      <Show loaded={list} what="the keys">{(keys) => (
        <Table caption="Keys" head={['Name', 'Kind', 'Ends with', 'Status', 'Created', 'Last used', 'Actions']}>
          {keys.data.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>{k.kind}</td>
              <td><code>…{k.last4 ?? '????'}</code></td>
              <td>{k.status}{k.status === 'expiring' && k.expiresAt ? <> until <When at={k.expiresAt} /></> : ''}</td>
              <td><When at={k.createdAt} /></td>
              <td><When at={k.lastUsedAt} /></td>
              <td>{m.canWrite && k.status !== 'revoked' ? (
                <div className="row-actions">
                  <button type="button" className="secondary" onClick={() => setPending({ kind: 'roll', key: k })}>Roll key</button>
                  <button type="button" className="secondary outline" onClick={() => setPending({ kind: 'revoke', key: k })}>Revoke</button>
                </div>
              ) : '—'}</td>
            </tr>
          ))}
        </Table>
      )}</Show>
      <Confirm key={pending ? `${pending.kind}-${pending.key.id}` : 'none'} pending={pending} onClose={() => setPending(null)} onDone={(s) => {
        setPending(null);
        if (s) {
          setShown(s);
          if (s.kind === 'public') m.setPublicKey(s.value);
        }
        list.reload();
      }} />
    </>
  );
}
