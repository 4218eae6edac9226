import { orderRepositoryContract } from '@sales/test-kit';
import { openInMemorySalesStore } from './memory-store';

describe('InMemoryOrderRepository', () => orderRepositoryContract(openInMemorySalesStore));
