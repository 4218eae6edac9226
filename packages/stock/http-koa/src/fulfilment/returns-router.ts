import type { AccessControl } from '@platform/http';
import type { GetReturn, ListReturns, ReceiveReturn } from '@stock/application';
import type Router from '@koa/router';
import { decodeReturnBody } from './fulfilment-codec';
import { returnJson } from './fulfilment-json';
import { fulfilmentRouter } from './fulfilment-router';

export interface ReturnUseCases {
  readonly receiveReturn: ReceiveReturn;
  readonly getReturn: GetReturn;
  readonly listReturns: ListReturns;
}

/** /api/returns: shipped units of an order coming back, each line with its disposition. */
export function returnsRouter({ useCases, access }: { useCases: ReturnUseCases; access: AccessControl }): Router {
  return fulfilmentRouter(
    {
      path: '/api/returns',
      noun: 'a return',
      operation: 'receive-return',
      logged: { event: 'return received', idField: 'returnId' },
      decode: decodeReturnBody,
      json: returnJson,
      useCases: { create: useCases.receiveReturn, get: useCases.getReturn, list: useCases.listReturns },
    },
    access,
  );
}
