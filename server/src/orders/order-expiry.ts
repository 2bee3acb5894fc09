/**
 * The one rule for an order past its time that the expiry sweep has not reached yet: it is already
 * expired. Reads that change nothing show it as `cancel`; calls that act on it expire it first
 * (`PrepayService.expire`, which closes its channel order and may find it paid after all).
 */
interface Expiring {
  status: string;
  expire_at: number;
}

/** Still `active` in the table, but past its time. */
export const isOverdue = (o: Expiring, now: number): boolean => o.status === 'active' && o.expire_at <= now;

/** The status a read shows: `cancel` for an overdue order, the stored one otherwise. */
export const shownStatus = <S extends string>(o: { status: S; expire_at: number }, now: number): S | 'cancel' => (isOverdue(o, now) ? 'cancel' : o.status);
