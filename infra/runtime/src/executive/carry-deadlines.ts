import { AsyncLocalStorage } from 'node:async_hooks';
import type { Msg, NatsConnection, Service, ServiceConfig, ServiceGroup, ServiceHandler } from 'nats';
import { readCarriedBudget } from '../wire/headers';

/** The request being handled: when the caller stops waiting for it (performance.now() time), if it said so. */
interface CarriedCall {
  until: number;
}

const carried = new AsyncLocalStorage<CarriedCall>();

/** Milliseconds the caller still waits for the request being handled, or undefined: it did not say (easer). */
export function carriedBudget(): number | undefined {
  const call = carried.getStore();
  return call === undefined ? undefined : call.until - performance.now();
}

function carryInto(handler: ServiceHandler): ServiceHandler {
  return (err, msg) => {
    const budget = readCarriedBudget((msg as Msg | undefined)?.headers);
    if (budget === undefined) return handler(err, msg);
    return carried.run({ until: performance.now() + budget }, () => handler(err, msg));
  };
}

function carryIntoEndpoints(service: Service): Service {
  const addEndpoint = service.addEndpoint.bind(service);
  service.addEndpoint = ((name: string, opts?: Parameters<ServiceGroup['addEndpoint']>[1]) => {
    if (typeof opts === 'function') return addEndpoint(name, carryInto(opts));
    if (opts?.handler) return addEndpoint(name, { ...opts, handler: carryInto(opts.handler) });
    return addEndpoint(name, opts);
  }) as Service['addEndpoint'];
  return service;
}

/**
 * The connection as the responder sees it, with every endpoint handler run where carriedBudget() reads the budget
 * the request message carries (DEADLINE_HEADER), so that the handler's deadline (adaptHandler) can follow it.
 *
 * Why a wrapper: the responder hands a route only the decoded message, not the NATS headers it came with; passing
 * the headers in its RouteContext would make this unnecessary (see the report on issue 33).
 */
export function carryDeadlines(nc: NatsConnection): NatsConnection {
  const services = {
    add: async (config: ServiceConfig) => carryIntoEndpoints(await nc.services.add(config)),
    get client() {
      return nc.services.client.bind(nc.services);
    },
  };
  return new Proxy(nc, {
    get(target, property) {
      if (property === 'services') return services;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
