import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { identity } from './columns';

/** The location table: the places stock is kept. */
export interface LocationRow {
  id: number;
  code: string;
  name: string;
  priority: number;
}

export function locationSchema(dialect: Dialect): EntitySchema<LocationRow> {
  return new EntitySchema<LocationRow>({
    name: 'Location',
    tableName: 'location',
    uniques: [{ name: 'location_code_unique', properties: ['code'] }],
    checks:
      dialect === 'postgresql'
        ? []
        : [
            { name: 'location_code_check', expression: 'length("code") <= 50' },
            { name: 'location_name_check', expression: 'length("name") <= 200' },
          ],
    properties: {
      id: identity(dialect),
      code: { type: 'string', length: 50 },
      name: { type: 'string', length: 200 },
      priority: { type: 'integer', default: 0 },
    },
  });
}
