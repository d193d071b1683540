// A JSON-RPC proxy in front of a node, for fault tests: the worker talks to the proxy, and
// the test decides what happens to each call.
//
//   const proxy = await startProxy(anvil.rpcUrl);
//   proxy.mode = 'fail';          // every call: HTTP 500
//   proxy.mode = 'hang';          // every call: no answer (the worker's timeout fires)
//   proxy.mode = 'lose-sends';    // eth_sendRawTransaction reaches the node, its answer is lost
//   proxy.mode = 'pass';          // back to normal
//   proxy.calls                   // [{ method }] of every call seen
//   proxy.upstream = otherUrl;    // later calls go to another node (a restarted one)
//   proxy.intercept = (call) => ...  // in 'pass' mode, per JSON-RPC call (batches too):
//                                 // undefined forwards it; { result } or { error } answers it
//                                 // without the node (a promise may hold it for a while)
import { createServer } from 'node:http';

export async function startProxy(upstream) {
  const hanging = new Set();
  const proxy = { url: '', mode: 'pass', calls: [], sends: 0, upstream, intercept: null };
  const server = createServer((req, res) => {
    // A node that is down (restarting, stopped) answers as a gateway would: 502, never an
    // exception the test process would take for its own.
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`upstream unreachable: ${e.message}`);
    });
  });
  async function handle(req, res) {
    let body = '';
    for await (const chunk of req) body += chunk;
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = null;
    }
    const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((c) => c?.method);
    for (const method of methods) proxy.calls.push({ method, mode: proxy.mode });
    const isSend = methods.includes('eth_sendRawTransaction');
    if (isSend) proxy.sends++;
    if (proxy.mode === 'fail') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream failure (injected)');
      return;
    }
    if (proxy.mode === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (proxy.mode === 'pass' && proxy.intercept && parsed && typeof parsed === 'object') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(await intercepted(parsed));
      return;
    }
    const upstreamRes = await fetch(proxy.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await upstreamRes.text();
    if (proxy.mode === 'lose-sends' && isSend) {
      // It reached the node; the worker never hears back.
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway (injected)');
      return;
    }
    res.writeHead(upstreamRes.status, { 'content-type': 'application/json' }).end(text);
  }
  /** A call or batch with proxy.intercept asked first about each call; the rest goes upstream. */
  async function intercepted(parsed) {
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const own = await Promise.all(list.map(async (c) => (c?.method ? proxy.intercept(c) : undefined)));
    const rest = list.filter((_, i) => !own[i]);
    let forwarded = [];
    if (rest.length > 0) {
      const body = JSON.stringify(Array.isArray(parsed) ? rest : rest[0]);
      const answer = await (await fetch(proxy.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
      forwarded = Array.isArray(answer) ? answer : [answer];
    }
    const byId = new Map(forwarded.map((a) => [a.id, a]));
    const out = list.map((c, i) => (own[i] ? { jsonrpc: '2.0', id: c.id, ...own[i] } : byId.get(c?.id)));
    return JSON.stringify(Array.isArray(parsed) ? out : out[0]);
  }
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${server.address().port}`;
  proxy.stop = async () => {
    for (const res of hanging) res.destroy();
    await new Promise((r) => server.close(r));
  };
  return proxy;
}
