/**
 * Every JSON route of the public API, in the order the reference lists them. A new route is one
 * `defineRoute` in its group's file and one line here: `app.ts` serves it, `/openapi.json`
 * describes it, and the front-end routers may call it in-process. The ways to pay and 4.7's
 * channels are those of the service's wallets (`apiRoutes(services.wallets)`); `API_ROUTES` are the
 * kit's own, which docs/api.md shows.
 */
import { KIT_WALLETS, type WalletCatalogue } from '@kit/shared';
import type { AnyRoute } from './route';
import { createPrepay, prepayDetail } from './submerchant-pay';
import { paymentRoutes, refundOrder } from './payments';
import { createMerchant, merchantLogin, setPaymentParamsOf } from './merchant';
import { addReceiver, finishSharing, removeReceiver, sharingAmounts, split, splitDetail } from './profit-sharing';
import { listCallbacks, recoverCallbacks, resendCallback } from './callbacks';
import { listReconciliations, reconciliationOfDay } from './reconciliation';
import { donate, donationOnChainIds, donationProject } from './donation';
import { deductionCode, pointsBalance } from './points';
import { lookup, proof, upload } from './chain';

const routesOf = new WeakMap<WalletCatalogue, readonly AnyRoute[]>();

/** The JSON API of a service whose wallets are `wallets` (the kit's, and any its composition root was given), made once per catalogue. */
export function apiRoutes(wallets: WalletCatalogue): readonly AnyRoute[] {
  let routes = routesOf.get(wallets);
  if (!routes) routesOf.set(wallets, (routes = routesFor(wallets)));
  return routes;
}

const routesFor = (wallets: WalletCatalogue): readonly AnyRoute[] => [
  createPrepay,
  prepayDetail,
  paymentRoutes(wallets).pay,
  ...paymentRoutes(wallets).ways,
  refundOrder,
  merchantLogin,
  createMerchant,
  setPaymentParamsOf(wallets),
  addReceiver,
  removeReceiver,
  split,
  splitDetail,
  finishSharing,
  sharingAmounts,
  listCallbacks,
  resendCallback,
  recoverCallbacks,
  listReconciliations,
  reconciliationOfDay,
  donationProject,
  donate,
  donationOnChainIds,
  pointsBalance,
  deductionCode,
  upload,
  lookup,
  proof,
];

/** The JSON API of the kit's own wallets. */
export const API_ROUTES: readonly AnyRoute[] = apiRoutes(KIT_WALLETS);
