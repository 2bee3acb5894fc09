/**
 * Who may see an order (4.2 detail, 4.3–4.5 payment arguments, 4.6 refunds): the app that created
 * it and the owners of its sub-merchant and of that sub-merchant's parent; nobody else, and to
 * anyone else the order does not exist (`not_found`).
 */
export interface OrderOwners {
  /** The app that created the order. */
  app_id: string;
  /** The app owning the order's sub-merchant. */
  sub_app_id: string;
  /** The app owning the sub-merchant's parent, when it has one. */
  parent_app_id: string | null;
}

export function orderVisibleTo(order: OrderOwners, appId: string): boolean {
  return order.app_id === appId || order.sub_app_id === appId || order.parent_app_id === appId;
}
