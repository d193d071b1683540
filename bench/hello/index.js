// Hello world: the fastest a Worker can answer under this runtime (scripts/bench.sh).
// `/log` answers the same after writing one JSON log line, as tokenpad writes for every
// request: what the runtime itself charges for a console line (wrangler dev carries each
// line to its terminal through the inspector).
export default {
  fetch(request) {
    // A suffix test, not a URL parse: the plain route must stay as cheap as it was.
    if (request.url.endsWith('/log')) {
      console.log(JSON.stringify({
        type: 'request', requestId: `req_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`, method: 'GET',
        route: '/holder/:userId', merchantId: 'm_0123456789abcdef', status: 200, code: null, replayed: false, durationMs: 1,
      }));
    }
    return new Response('{"hello":"world"}', { headers: { 'content-type': 'application/json' } });
  },
};
