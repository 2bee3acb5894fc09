/**
 * What a payer's app needs to pay a v3 order, signed with the merchant API private key (not the
 * request signature): mini-program `paySign` over `appId\ntimeStamp\nnonceStr\npackage\n`
 * (`signType: "RSA"`), app `sign` over `appid\ntimestamp\nnoncestr\nprepayid\n`.
 */
import type { KeyObject } from 'node:crypto';
import { lines, newNonce, rsaSign } from './sign';

export interface V3MiniProgramArgs {
  timeStamp: number;
  nonceStr: string;
  package: string;
  signType: 'RSA';
  paySign: string;
}

export interface V3AppArgs {
  appid: string;
  partnerid: string;
  prepayid: string;
  package: 'Sign=WXPay';
  noncestr: string;
  timestamp: string;
  sign: string;
}

export function miniProgramArgs(appId: string, prepayId: string, privateKey: KeyObject, timeStamp: number, nonceStr = newNonce()): V3MiniProgramArgs {
  const pkg = `prepay_id=${prepayId}`;
  return { timeStamp, nonceStr, package: pkg, signType: 'RSA', paySign: rsaSign(lines(appId, timeStamp, nonceStr, pkg), privateKey) };
}

export function appArgs(
  ids: { appid: string; partnerid: string },
  prepayId: string,
  privateKey: KeyObject,
  timestamp: string,
  noncestr = newNonce(),
): V3AppArgs {
  const sign = rsaSign(lines(ids.appid, timestamp, noncestr, prepayId), privateKey);
  return { appid: ids.appid, partnerid: ids.partnerid, prepayid: prepayId, package: 'Sign=WXPay', noncestr, timestamp, sign };
}
