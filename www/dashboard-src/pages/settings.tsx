// Settings: the merchant settings the API has (GET/PATCH /merchant/settings): private mode.
import { useMerchant } from '../merchant';
import { ErrorBox, Show, useAction, useLoad } from '../ui';

export function Settings() {
  const m = useMerchant();
  const data = useLoad(() => m.run((s) => s.getSettings()), [m.id]);
  const act = useAction<unknown>();
  return (
    <>
      <h1>Settings</h1>
      <Show loaded={data} what="the settings">{(st) => (
        <form onSubmit={(e) => e.preventDefault()}>
          <label>
            <input type="checkbox" role="switch" checked={st.privateMode} disabled={!m.canWrite || act.busy} aria-describedby="private-help"
              onChange={async (e) => {
                const privateMode = e.target.checked;
                if (await act.run(() => m.run((s) => s.patchSettings({ privateMode })))) data.reload();
              }} /> Private mode
          </label>
          <small id="private-help">On: holders are read only with a secret key or the holder's own session token, never with the public key alone.</small>
          {act.error !== undefined && <ErrorBox error={act.error} what="Saving" />}
          {act.result !== undefined && <p role="status" className="ok">Saved.</p>}
        </form>
      )}</Show>
    </>
  );
}
