// Hello world: the fastest a Worker can answer under this runtime (scripts/bench.sh).
export default {
  fetch() {
    return new Response('{"hello":"world"}', { headers: { 'content-type': 'application/json' } });
  },
};
