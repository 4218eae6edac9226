import type { Location } from '@stock/domain';

export function locationJson({ id, code, name, priority }: Location) {
  return { id, code, name, priority };
}
