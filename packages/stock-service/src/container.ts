import 'reflect-metadata';
import { AdjustStock, CreateProduct, DeleteProduct, GetProduct, ListProducts, type ProductRepository, UpdateProduct } from '@stock/domain';
import { createStockApp } from '@stock/http-koa';
import { container as rootContainer, type DependencyContainer, instanceCachingFactory } from 'tsyringe';
import type { Logger } from 'winston';
import type { StockServiceConfig } from './config';
import { createLogger } from './logger';
import type { Persistence } from './persistence';
import { Tokens } from './tokens';

/** A use case whose only dependency is the repository. */
type UseCaseClass<T> = new (products: ProductRepository) => T;

function registerUseCase<T>(container: DependencyContainer, useCase: UseCaseClass<T>): void {
  container.register(useCase, { useFactory: instanceCachingFactory((c) => new useCase(c.resolve(Tokens.ProductRepository))) });
}

/**
 * Every registration of the service, in one place. The persistence is opened
 * by the caller (it is asynchronous); everything else is built on first use.
 */
export function createContainer(config: StockServiceConfig, persistence: Persistence, logger?: Logger): DependencyContainer {
  const container = rootContainer.createChildContainer();
  container.register(Tokens.Config, { useValue: config });
  container.register(Tokens.Logger, { useValue: logger ?? createLogger(config.logLevel) });
  container.register(Tokens.Persistence, { useValue: persistence });
  container.register(Tokens.ProductRepository, { useValue: persistence.repository });
  for (const useCase of [CreateProduct, GetProduct, ListProducts, UpdateProduct, DeleteProduct, AdjustStock]) {
    registerUseCase(container, useCase as UseCaseClass<unknown>);
  }
  container.register(Tokens.HttpApp, {
    useFactory: instanceCachingFactory((c) => {
      const persistence = c.resolve(Tokens.Persistence);
      return createStockApp({
        useCases: {
          createProduct: c.resolve(CreateProduct),
          getProduct: c.resolve(GetProduct),
          listProducts: c.resolve(ListProducts),
          updateProduct: c.resolve(UpdateProduct),
          deleteProduct: c.resolve(DeleteProduct),
          adjustStock: c.resolve(AdjustStock),
        },
        idempotency: persistence.idempotency,
        logger: c.resolve(Tokens.Logger),
        isDatabaseReachable: () => persistence.isReachable(),
        poolStats: persistence.poolStats,
      });
    }),
  });
  return container;
}
