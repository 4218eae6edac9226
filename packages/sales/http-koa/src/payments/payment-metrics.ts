import { Counter, type Registry } from 'prom-client';

/** Webhook events by type (the port's kind, `refused` for a bad signature) and what handling them did. */
export interface PaymentEventCounter {
  count(type: string, outcome: string): void;
}

export function paymentEventCounter(registry: Registry): PaymentEventCounter {
  const counter = new Counter({
    name: 'sales_payment_events_total',
    help: "The payment provider's webhook events, by type and outcome (refused: a bad signature)",
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  return { count: (type, outcome) => counter.inc({ type, outcome }) };
}

/** Calls to the provider it refused for good (by the call: capture, cancel, refund), which are not made again. */
export interface PaymentRefusalCounter {
  count(call: string): void;
}

export function paymentRefusalCounter(registry: Registry): PaymentRefusalCounter {
  const counter = new Counter({
    name: 'sales_payment_calls_refused_total',
    help: 'Calls to the payment provider that it refused for good (not made again; the order says why), by call',
    labelNames: ['call'],
    registers: [registry],
  });
  return { count: (call) => counter.inc({ call }) };
}
