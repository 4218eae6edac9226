import { BASE, Link } from '../router';
import type { Product } from '../types';

const money = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A column of the table: its heading, whether it holds a number, and the cell it shows for a product. */
export interface ProductColumn {
  readonly heading: string;
  readonly number?: boolean;
  readonly cell: (product: Product) => string | number;
}

/** The columns the lists pick from. */
export const COLUMNS = {
  sku: { heading: 'SKU', cell: (product) => product.sku ?? '' },
  price: { heading: 'Price', number: true, cell: (product) => money.format(product.price) },
  onHand: { heading: 'On hand', number: true, cell: (product) => product.quantityInStock },
  available: { heading: 'Available', number: true, cell: (product) => product.availableQuantity },
  threshold: { heading: 'Threshold', number: true, cell: (product) => product.lowStockThreshold },
} as const satisfies Record<string, ProductColumn>;

interface Props {
  /** Names the table for screen readers (the page's heading says it to the eye). */
  readonly caption: string;
  readonly products: readonly Product[];
  readonly columns: readonly ProductColumn[];
  /** Said instead of an empty table. */
  readonly empty: string;
}

/** Products as a table, each named by a link to its page, then the columns asked for. */
export function ProductTable({ caption, products, columns, empty }: Props) {
  if (products.length === 0) return <p>{empty}</p>;
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          {columns.map((column) => (
            <th key={column.heading} scope="col" className={column.number ? 'number' : undefined}>
              {column.heading}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {products.map((product) => (
          <tr key={product.id}>
            <td>
              <Link href={`${BASE}/products/${product.id}`}>{product.name}</Link>
            </td>
            {columns.map((column) => (
              <td key={column.heading} className={column.number ? 'number' : undefined}>
                {column.cell(product)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
