/**
 * Every text of the payer mini-program, in Chinese and English: its one message catalogue.
 * `{name}` marks a value filled in when shown. Errors are keyed `error.<id>` by the `error` id the
 * router answers (`ERROR_CATALOGUE`); any other id is shown as `error.generic` with its code. How a
 * wallet's channel is named to the payer is the wallet's own (`@kit/shared/wallets/looks`, `t.channel`).
 */
import type { Lang } from '@kit/shared/i18n';

const en = {
  'nav.title': 'Pay',
  'nav.resultTitle': 'Payment',

  'state.loading': 'Loading the order…',
  'state.ready': 'Amount to pay',
  'state.waiting': 'Confirming the payment…',
  'state.success': 'Payment successful',
  'state.paid': 'This order has already been paid',
  'state.expired': 'This order is no longer valid',
  'state.refunded': 'This order was refunded',
  'state.paidTwice': 'This order was already paid',
  'state.missing': 'Order not found',
  'state.rescan': 'This payment has expired',
  'state.error': 'The order could not be loaded',

  'detail.success': 'Thank you. The merchant has received your payment.',
  'detail.paid': 'It was paid at {time}. There is nothing more to pay.',
  'detail.expired': 'It expired before it was paid. Ask the cashier for a new code.',
  'detail.refunded': 'The payment went back to the payer.',
  'detail.paidTwice':
    'It was paid with {wallet} at {time}, before your payment went through. Your payment is refunded to you automatically: there is nothing to do.',
  'detail.missing': 'Please check that you scanned the payment code at the counter.',
  'detail.rescan': 'Please scan the code at the counter again.',

  'order.discount': 'Discount',
  'order.original': 'Original price',
  'order.merchant': 'Merchant',
  'order.amount': 'Amount',
  'order.number': 'Order number',
  'order.created': 'Created',
  'order.paidAt': 'Paid at',
  'order.items': 'Items',
  'order.more': '{count} more items',
  'order.note': 'Note',
  'order.receipt': 'Receipt',

  'second.refunding': 'Second payment of {amount} with {wallet}: being refunded automatically.',
  'second.refunded': 'Second payment of {amount} with {wallet}: refunded automatically.',
  'second.failed': 'Second payment of {amount} with {wallet}: the automatic refund did not go through; the merchant refunds it.',

  'pay.button': 'Pay {amount}',
  'pay.paying': 'Starting the payment…',
  'pay.confirming': 'Confirming…',
  'pay.retry': 'Try again',
  'pay.done': 'Done',
  'notice.cancelled': 'You cancelled the payment. You can pay again.',
  'notice.failed': 'The payment did not go through. {reason}',
  'notice.tryAgain': 'You can try again.',

  'error.network': 'The network is not available. Check your connection and try again.',
  'error.generic': 'Something went wrong (code {code}). Please try again.',
  'error.not_found': 'This order does not exist.',
  'error.order_not_active': 'This order is no longer valid.',
  'error.mp_login_failed': 'Logging in to pay failed. Please try again.',
  'error.mp_login_unavailable': 'The login service cannot be reached right now. Please try again in a moment.',
  'error.mp_not_configured': 'Payments are not set up for this mini-program yet. Please pay at the counter.',
  'error.mp_upstream_failed': 'The payment service refused the request. Please try again.',
  'error.mp_upstream_unreachable': 'The payment service cannot be reached right now. Please try again in a moment.',
  'error.shutting_down': 'The service is restarting. Please try again in a moment.',
  'error.login_throttled': 'Too many failed attempts. Please wait a few minutes and try again.',
  'error.unavailable': 'The service is busy right now. Please try again in a moment.',
};

export type MessageKey = keyof typeof en;

const zhCN: Record<MessageKey, string> = {
  'nav.title': '支付',
  'nav.resultTitle': '支付结果',

  'state.loading': '正在加载订单…',
  'state.ready': '需支付金额',
  'state.waiting': '正在确认支付结果…',
  'state.success': '支付成功',
  'state.paid': '该订单已支付',
  'state.expired': '订单已失效',
  'state.refunded': '该订单已退款',
  'state.paidTwice': '该订单此前已支付',
  'state.missing': '未找到订单',
  'state.rescan': '支付已过期',
  'state.error': '订单加载失败',

  'detail.success': '感谢惠顾，商家已收到您的付款。',
  'detail.paid': '已于 {time} 支付，无需再次付款。',
  'detail.expired': '订单在支付前已过期，请向收银员索取新的付款码。',
  'detail.refunded': '款项已退回付款人。',
  'detail.paidTwice': '该订单已于 {time} 通过{wallet}支付，早于您的这笔付款。您的付款将自动退回原支付账户，无需任何操作。',
  'detail.missing': '请确认扫描的是收银台上的付款码。',
  'detail.rescan': '请重新扫描收银台上的付款码。',

  'order.discount': '优惠',
  'order.original': '原价',
  'order.merchant': '商户',
  'order.amount': '金额',
  'order.number': '订单号',
  'order.created': '下单时间',
  'order.paidAt': '支付时间',
  'order.items': '商品明细',
  'order.more': '另有 {count} 件商品',
  'order.note': '备注',
  'order.receipt': '支付凭证',

  'second.refunding': '通过{wallet}的重复付款 {amount}：正在自动退款。',
  'second.refunded': '通过{wallet}的重复付款 {amount}：已自动退款。',
  'second.failed': '通过{wallet}的重复付款 {amount}：自动退款未成功，将由商户为您退款。',

  'pay.button': '支付 {amount}',
  'pay.paying': '正在发起支付…',
  'pay.confirming': '正在确认…',
  'pay.retry': '重试',
  'pay.done': '完成',
  'notice.cancelled': '您已取消支付，可以再次支付。',
  'notice.failed': '支付未完成。{reason}',
  'notice.tryAgain': '您可以再试一次。',

  'error.network': '网络不可用，请检查网络后重试。',
  'error.generic': '出现错误（代码 {code}），请重试。',
  'error.not_found': '该订单不存在。',
  'error.order_not_active': '该订单已失效。',
  'error.mp_login_failed': '登录失败，请重试。',
  'error.mp_login_unavailable': '暂时无法登录，请稍后重试。',
  'error.mp_not_configured': '该小程序尚未开通支付，请在收银台付款。',
  'error.mp_upstream_failed': '支付服务拒绝了请求，请重试。',
  'error.mp_upstream_unreachable': '暂时无法连接支付服务，请稍后重试。',
  'error.shutting_down': '服务正在重启，请稍后重试。',
  'error.login_throttled': '尝试次数过多，请等待几分钟后重试。',
  'error.unavailable': '服务繁忙，请稍后重试。',
};

export const MESSAGES: Record<Lang, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };
