import type { InjectionToken } from 'tsyringe';
import type { Logger } from 'winston';
import type { ProductRepository } from '@stock/domain';
import type { createStockApp } from '@stock/http-koa';
import type { StockServiceConfig } from './config';
import type { Persistence } from './persistence';

export const Tokens = {
  Config: Symbol('Config') as InjectionToken<StockServiceConfig>,
  Logger: Symbol('Logger') as InjectionToken<Logger>,
  Persistence: Symbol('Persistence') as InjectionToken<Persistence>,
  ProductRepository: Symbol('ProductRepository') as InjectionToken<ProductRepository>,
  HttpApp: Symbol('HttpApp') as InjectionToken<ReturnType<typeof createStockApp>>,
};
