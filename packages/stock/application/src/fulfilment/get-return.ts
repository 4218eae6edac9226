import { type ReturnRepository, ReturnNotFoundError, type StockReturn } from '@stock/domain';

export class GetReturn {
  constructor(private readonly returns: ReturnRepository) {}

  async execute(id: string): Promise<StockReturn> {
    const stockReturn = await this.returns.findById(id);
    if (!stockReturn) throw new ReturnNotFoundError(id);
    return stockReturn;
  }
}
