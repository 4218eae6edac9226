import { Counter, type Registry } from 'prom-client';

export type AdjustmentOutcome =
  'adjusted' | 'replayed' | 'insufficient_stock' | 'limit_exceeded' | 'not_found' | 'invalid' | 'error';

/** The stock service's own metrics, in the app's registry beside the platform's. */
export class StockMetrics {
  private readonly adjustments: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.adjustments = new Counter({
      name: 'stock_adjustments_total',
      help: 'Stock adjustments by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  countAdjustment(outcome: AdjustmentOutcome): void {
    this.adjustments.inc({ outcome });
  }
}
