/**
 * Why a sub-merchant cannot take payments: disabled itself, or through its parent. A merchant's
 * staff must be told which of the two, or they look for the switch on the wrong merchant.
 */
import { KitError } from '@kit/shared';

export interface MerchantSwitches {
  id: string;
  disabled: number | boolean | null;
  parentId: string | null;
  parentDisabled: number | boolean | null;
}

/** The `merchant_disabled` error for a sub-merchant that cannot take payments, or null when it can. */
export function subMerchantDisabled(m: MerchantSwitches): KitError | null {
  if (m.disabled) return new KitError('merchant_disabled', `sub-merchant "${m.id}" is disabled`);
  if (m.parentDisabled) {
    return new KitError(
      'merchant_disabled',
      `the parent merchant "${m.parentId}" of sub-merchant "${m.id}" is disabled, so the sub-merchant cannot take payments`,
    );
  }
  return null;
}
