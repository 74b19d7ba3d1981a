/** D6: the one paging shape. The array is named after what it holds. */
export interface PageRequest {
  page: number;
  size: number;
}

export type Page<K extends string, T> = { [key in K]: T[] } & {
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
};

export function toPage<K extends string, T>(name: K, items: T[], total: number, req: PageRequest): Page<K, T> {
  return {
    [name]: items,
    page: req.page,
    size: req.size,
    totalElements: total,
    totalPages: Math.ceil(total / req.size),
  } as Page<K, T>;
}
