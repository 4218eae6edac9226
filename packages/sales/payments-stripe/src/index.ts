export * from './payment-settings';
export * from './stripe-payment-provider';
