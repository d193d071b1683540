// Members: who may open this app, with which role, and invites (owners only).
import { useState, type FormEvent } from 'react';
import { account, type Members as MemberList } from '../api';
import { useMerchant } from '../merchant';
import { ErrorBox, Show, Table, useAction, useLoad, When } from '../ui';

export function Members() {
  const m = useMerchant();
  const base = `/account/merchants/${encodeURIComponent(m.id)}`;
  const list = useLoad(() => account<MemberList>('GET', `${base}/members`), [m.id]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('developer');
  const act = useAction<unknown>();
  const remove = useAction<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await act.run(async () => (await account('POST', `${base}/invites`, { email, role })) ?? true)) {
      setEmail('');
      list.reload();
    }
  };
  return (
    <>
      <h1>Members</h1>
      <Show loaded={list} what="the members">{(d) => (
        <>
          {remove.error !== undefined && <ErrorBox error={remove.error} what="Remove" />}
          <Table caption="Members" head={m.role === 'owner' ? ['Email', 'Role', 'Since', 'Remove'] : ['Email', 'Role', 'Since']}>
            {d.members.map((x) => (
              <tr key={x.email}>
                <td>{x.email}</td><td>{x.role}</td><td><When at={x.addedAt} /></td>
                {m.role === 'owner' && <td><button type="button" className="secondary outline"
                  onClick={async () => {
                    if (await remove.run(async () => (await account('POST', `${base}/members/remove`, { email: x.email })) ?? true)) list.reload();
                  }}>Remove</button></td>}
              </tr>
            ))}
          </Table>
          {d.invites.length > 0 && (
            <Table caption="Open invites" head={['Email', 'Role', 'Expires']}>
              {d.invites.map((x) => <tr key={x.email}><td>{x.email}</td><td>{x.role}</td><td><When at={x.expiresAt} /></td></tr>)}
            </Table>
          )}
        </>
      )}</Show>
      {m.role === 'owner' ? (
        <article>
          <h2>Invite someone</h2>
          <form onSubmit={submit}>
            <div className="grid-2">
              <label>Email<input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
              <label>Role<select value={role} onChange={(e) => setRole(e.target.value)}>
                <option value="owner">owner (everything, members too)</option>
                <option value="developer">developer (keys and everything)</option>
                <option value="viewer">viewer (read only)</option>
              </select></label>
            </div>
            {act.error !== undefined && <ErrorBox error={act.error} what="Invite" />}
            <button type="submit" aria-busy={act.busy}>Send invite</button>
          </form>
          {act.result !== undefined && <p role="status" className="ok">Invite sent.</p>}
        </article>
      ) : <p>Only an owner invites members.</p>}
    </>
  );
}
