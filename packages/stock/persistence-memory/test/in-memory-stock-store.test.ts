import {
  changesAtOnceContract,
  idempotencyContract,
  locationRepositoryContract,
  productRepositoryContract,
  productSearchContract,
  reservationRepositoryContract,
  stockLevelRepositoryContract,
  stockRulesContract,
  transferRepositoryContract,
  unitOfWorkContract,
} from '@stock/test-kit';
import { openInMemoryStockStore as open } from './memory-store';

describe('InMemoryProductRepository', () => productRepositoryContract(open));
describe('InMemoryProductRepository: SKUs and search', () => productSearchContract(open));
describe('InMemoryLocationRepository', () => locationRepositoryContract(open));
describe('InMemoryStockLevelRepository', () => stockLevelRepositoryContract(open));
describe('InMemoryTransferRepository', () => transferRepositoryContract(open));
describe('InMemoryReservationRepository', () => reservationRepositoryContract(open));
describe('The stock plans and the guard of InMemoryStockLevelRepository', () => stockRulesContract(open));
describe('InMemoryStockStore changes at once (it has none: skipped)', () => changesAtOnceContract(open));
describe('InMemoryStockStore unit of work', () => unitOfWorkContract(open));
describe('InMemoryStockStore idempotency records', () => idempotencyContract(open));
