import type { AccessControl } from '@platform/http';
import type { GetShipment, ListShipments, ShipOrder } from '@stock/application';
import type Router from '@koa/router';
import { decodeShipmentBody } from './fulfilment-codec';
import { shipmentJson } from './fulfilment-json';
import { fulfilmentRouter } from './fulfilment-router';

export interface ShipmentUseCases {
  readonly shipOrder: ShipOrder;
  readonly getShipment: GetShipment;
  readonly listShipments: ListShipments;
}

/** /api/shipments: an order's committed units leaving the warehouse. */
export function shipmentsRouter({ useCases, access }: { useCases: ShipmentUseCases; access: AccessControl }): Router {
  return fulfilmentRouter(
    {
      path: '/api/shipments',
      noun: 'a shipment',
      operation: 'ship-order',
      logged: { event: 'order shipped', idField: 'shipmentId' },
      decode: decodeShipmentBody,
      json: shipmentJson,
      useCases: { create: useCases.shipOrder, get: useCases.getShipment, list: useCases.listShipments },
    },
    access,
  );
}
