import { expect } from 'chai';
import {
  decodeEvent,
  decodeEventFor,
  EVENT_TYPES,
  eventTypesConsumedBy,
  newEvent,
  type ReservationConfirmedV2,
} from '../src';
import { acceptedSamples, envelope, refusedSamples, VALID_DATA } from './samples';

describe('decodeEvent', () => {
  for (const type of EVENT_TYPES) {
    describe(type, () => {
      it('decodes a valid message into the typed event, whether text, bytes or parsed JSON', () => {
        const message = envelope(type, VALID_DATA[type]);
        for (const body of [message, JSON.stringify(message), Buffer.from(JSON.stringify(message))]) {
          expect(decodeEvent(body)).to.deep.equal({ ok: true, event: message });
        }
      });

      it('accepts every valid variant', () => {
        for (const { label, message } of acceptedSamples(type)) expect(decodeEvent(message).ok, label).to.equal(true);
      });

      it('refuses every invalid variant with a failure that says where, never a throw', () => {
        for (const { label, message } of refusedSamples(type)) {
          const result = decodeEvent(message);
          expect(result.ok, label).to.equal(false);
          if (!result.ok) {
            expect(result.failure.reason, label).to.be.oneOf(['not-an-envelope', 'invalid-data']);
            expect(result.failure.message, label).to.match(/: /);
          }
        }
      });
    });
  }

  it('names the field and the rule that failed, and keeps the id and type for the log', () => {
    const result = decodeEvent(
      envelope('sales.order.placed', {
        orderId: '0b6f1d8e-6d3c-4f7a-9a51-3f0e2b6c9d41',
        lines: [{ productId: 1, quantity: 0 }],
      }),
    );
    expect(result).to.deep.equal({
      ok: false,
      failure: {
        reason: 'invalid-data',
        message: 'data.lines.0.quantity: must be an integer from 1 to 10000',
        id: '5f0c7e1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
        type: 'sales.order.placed',
      },
    });
  });

  it('tells malformed JSON, a non-envelope and an unknown type apart', () => {
    expect(decodeEvent('{"id":')).to.have.nested.property('failure.reason', 'malformed-json');
    expect(decodeEvent(Buffer.from([0xff, 0xfe]))).to.have.nested.property('failure.reason', 'malformed-json');
    for (const value of [null, 42, 'null', [], '[]', { hello: 'world' }])
      expect(decodeEvent(value), JSON.stringify(value)).to.have.nested.property('failure.reason', 'not-an-envelope');
    const unknown = decodeEvent(envelope('sales.order.shipped', { orderId: 'x' }));
    expect(unknown).to.deep.equal({
      ok: false,
      failure: {
        reason: 'unknown-type',
        message: 'no contract for the event type "sales.order.shipped"',
        id: '5f0c7e1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
        type: 'sales.order.shipped',
      },
    });
    expect(decodeEvent(envelope('toString', {}))).to.have.nested.property('failure.reason', 'unknown-type');
  });

  it('makes events that decode back to themselves', () => {
    const event = newEvent(
      'sales.order.paid',
      { orderId: '0b6f1d8e-6d3c-4f7a-9a51-3f0e2b6c9d41' },
      new Date('2026-11-24T10:00:00Z'),
    );
    expect(event.occurredAt).to.equal('2026-11-24T10:00:00.000Z');
    expect(decodeEvent(JSON.stringify(event))).to.deep.equal({ ok: true, event });
  });

  it('says which events each service’s queue is bound to', () => {
    expect(eventTypesConsumedBy('stock-service')).to.deep.equal([
      'sales.order.placed',
      'sales.order.cancelled',
      'sales.order.paid',
    ]);
    const salesTypes = eventTypesConsumedBy('sales-service');
    expect(salesTypes.filter((type) => type.startsWith('stock.reservation.'))).to.have.length(7);
    expect(salesTypes.filter((type) => !type.startsWith('stock.reservation.'))).to.deep.equal([
      'stock.shipment.created',
      'stock.return.received',
    ]);
  });

  it('makes a confirmation with its allocations that decodes back to itself, and refuses one line field more', () => {
    const data: ReservationConfirmedV2 = {
      orderId: '0b6f1d8e-6d3c-4f7a-9a51-3f0e2b6c9d41',
      reservationId: '7c2a4e90-1f3b-4c8d-8e6a-5b9d0c1f2a37',
      expiresAt: '2026-11-24T10:15:00.000Z',
      lines: [{ productId: 7, quantity: 3, allocations: [{ locationId: 2, quantity: 3 }] }],
    };
    const event = newEvent('stock.reservation.confirmed.v2', data, new Date('2026-11-24T10:00:00Z'));
    expect(decodeEvent(JSON.stringify(event))).to.deep.equal({ ok: true, event });
    const extra = { ...event, data: { ...data, lines: [{ ...data.lines[0], locationId: 2 }] } };
    expect(decodeEvent(JSON.stringify(extra))).to.deep.equal({
      ok: false,
      failure: {
        reason: 'invalid-data',
        message: 'data.lines.0: has unknown properties: locationId',
        id: event.id,
        type: 'stock.reservation.confirmed.v2',
      },
    });
  });

  it('binds sales to both confirmations while stock publishes both, and stock to neither', () => {
    expect(eventTypesConsumedBy('sales-service')).to.include.members([
      'stock.reservation.confirmed',
      'stock.reservation.confirmed.v2',
    ]);
    const v1 = envelope('stock.reservation.confirmed', VALID_DATA['stock.reservation.confirmed']);
    const v2 = envelope('stock.reservation.confirmed.v2', VALID_DATA['stock.reservation.confirmed.v2']);
    for (const message of [v1, v2]) {
      expect(decodeEventFor('sales-service')(message).ok).to.equal(true);
      expect(decodeEventFor('stock-service')(message)).to.have.nested.property('failure.reason', 'unknown-type');
    }
  });
});
