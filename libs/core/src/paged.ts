/** One page of a list, as every paginated operation answers it. */
export interface Paged<T> {
  items: T[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  nextCursor: string | null;
}
