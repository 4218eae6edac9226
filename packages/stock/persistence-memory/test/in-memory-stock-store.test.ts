import {
  idempotencyContract,
  productRepositoryContract,
  stockRulesContract,
  unitOfWorkContract,
} from '@stock/test-kit';
import { openInMemoryStockStore as open } from './memory-store';

describe('InMemoryProductRepository', () => productRepositoryContract(open));
describe('The stock rules in InMemoryProductRepository', () => stockRulesContract(open));
describe('InMemoryStockStore unit of work', () => unitOfWorkContract(open));
describe('InMemoryStockStore idempotency records', () => idempotencyContract(open));
