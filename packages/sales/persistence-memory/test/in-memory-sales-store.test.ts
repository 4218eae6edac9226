import { orderRepositoryContract } from '@sales/domain/testing';
import { openInMemorySalesStore } from './memory-store';

describe('InMemoryOrderRepository', () => orderRepositoryContract(openInMemorySalesStore));
