/** What confirming with one of Stripe's test payment methods does. */
export type TestCard =
  | { readonly outcome: 'authorised'; readonly brand: string; readonly refundsFail?: true }
  | { readonly outcome: 'declined'; readonly brand: string; readonly declineCode: string; readonly message: string };

/**
 * The test payment methods this provider knows, behaving as Stripe documents them
 * (https://docs.stripe.com/testing): a card that authorises, two that decline, one whose refunds fail.
 */
export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  pm_card_visa: { outcome: 'authorised', brand: 'visa' },
  pm_card_mastercard: { outcome: 'authorised', brand: 'mastercard' },
  pm_card_chargeDeclined: {
    outcome: 'declined',
    brand: 'visa',
    declineCode: 'generic_decline',
    message: 'Your card was declined.',
  },
  pm_card_chargeDeclinedInsufficientFunds: {
    outcome: 'declined',
    brand: 'visa',
    declineCode: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  pm_card_refundFail: { outcome: 'authorised', brand: 'visa', refundsFail: true },
};
