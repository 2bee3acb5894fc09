/**
 * Every JSON route of the public API, in the order the reference lists them. A new route is one
 * `defineRoute` in its group's file and one line here: `app.ts` serves it, `/openapi.json`
 * describes it, and the front-end routers may call it in-process.
 */
import type { AnyRoute } from './route';
import { createPrepay, prepayDetail } from './submerchant-pay';
import { pay, refundOrder, WAY_ROUTES } from './payments';
import { createMerchant, merchantLogin, setPaymentParams } from './merchant';
import { addReceiver, finishSharing, removeReceiver, sharingAmounts, split, splitDetail } from './profit-sharing';
import { listCallbacks, recoverCallbacks, resendCallback } from './callbacks';
import { listReconciliations, reconciliationOfDay } from './reconciliation';
import { donate, donationOnChainIds, donationProject } from './donation';
import { deductionCode, pointsBalance } from './points';
import { lookup, proof, upload } from './chain';

export const API_ROUTES: readonly AnyRoute[] = [
  createPrepay,
  prepayDetail,
  pay,
  ...WAY_ROUTES,
  refundOrder,
  merchantLogin,
  createMerchant,
  setPaymentParams,
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
