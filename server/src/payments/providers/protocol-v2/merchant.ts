/** Helpers the channel adapters share: clear errors for what is missing, protocol text of fields. */
import { KitError, type PaymentChannel } from '@kit/shared';
import type { PayChannelOrdersTable } from '../../../db/schema';
import type { MerchantFields } from './types';

export function missing(channel: PaymentChannel, fields: string[]): never {
  throw new KitError(
    'payment_params_missing',
    `${channel} payment parameters missing on the sub-merchant and its parent: ${fields.join(', ')} (set them with PUT /merchant/paymentParams)`,
  );
}

export function unconfigured(what: string): never {
  throw new KitError('channel_unavailable', `the payment channel is not configured: set ${what}`);
}

/** The fields that have a value, as protocol text. */
export function definedOnly(o: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') out[k] = String(v);
  return out;
}

/** The merchant a channel order was placed for, as stored with it. */
export function merchantOf(co: Pick<PayChannelOrdersTable, 'merchant_json'>): MerchantFields {
  return JSON.parse(co.merchant_json) as MerchantFields;
}
