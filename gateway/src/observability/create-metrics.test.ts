import { createMetrics } from './create-metrics';

/** A counter's values by its one label, as a scrape reads them. */
async function readCounter(metrics: ReturnType<typeof createMetrics>, name: string): Promise<Record<string, number>> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return Object.fromEntries(values.map(({ labels, value }) => [String(Object.values(labels)[0]), value]));
}

describe("the gateway's --auth metrics", () => {
  it('count bearer tokens found verified already and checked anew, every lookup once, across scrapes', async () => {
    const metrics = createMetrics();
    for (let i = 0; i < 5; i++) metrics.tokenLookup('hit');
    metrics.tokenLookup('miss');
    expect(await readCounter(metrics, 'restbus_gateway_auth_token_cache_total')).toEqual({ hit: 5, miss: 1 });
    metrics.tokenLookup('hit');
    expect(await readCounter(metrics, 'restbus_gateway_auth_token_cache_total')).toEqual({ hit: 6, miss: 1 });
    expect(await metrics.registry.metrics()).toContain('restbus_gateway_auth_token_cache_total{result="hit"} 6');
  });

  it('count refused calls by code and key-set fetches by outcome', async () => {
    const metrics = createMetrics();
    metrics.refused('TOKEN_INVALID');
    metrics.refused('TOKEN_INVALID');
    metrics.refused('INSUFFICIENT_SCOPE');
    metrics.keySetFetched('ok');
    expect(await readCounter(metrics, 'restbus_gateway_auth_refused_total')).toEqual({
      TOKEN_INVALID: 2,
      INSUFFICIENT_SCOPE: 1,
    });
    expect(await readCounter(metrics, 'restbus_gateway_auth_key_set_fetches_total')).toEqual({ ok: 1 });
  });
});
