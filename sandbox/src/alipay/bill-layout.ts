/**
 * The layout of Alipay's trade bill files (业务明细 and its 汇总), as Alipay writes them: the
 * columns and the rules drawn around each list. Written here for the stand-in's bills
 * (`sandbox-alipay-bills.ts`), apart from the kit's reader (`payments/providers/alipay/trade-bill.ts`),
 * so that a reader expecting another layout is caught rather than agreed with.
 */
export const DETAIL_COLUMNS = [
  '支付宝交易号',
  '商户订单号',
  '业务类型',
  '商品名称',
  '创建时间',
  '完成时间',
  '门店编号',
  '门店名称',
  '操作员',
  '终端号',
  '对方账户',
  '订单金额（元）',
  '商家实收（元）',
  '支付宝红包（元）',
  '集分宝（元）',
  '支付宝优惠（元）',
  '商家优惠（元）',
  '券核销金额（元）',
  '券名称',
  '商家红包消费金额（元）',
  '卡消费金额（元）',
  '退款批次号/请求号',
  '服务费（元）',
  '分润（元）',
  '备注',
] as const;

export const SUMMARY_COLUMNS = [
  '门店编号',
  '门店名称',
  '交易订单总笔数',
  '退款订单总笔数',
  '订单金额（元）',
  '商家实收（元）',
  '支付宝优惠（元）',
  '商家优惠（元）',
  '卡消费金额（元）',
  '服务费（元）',
  '分润（元）',
  '实收净额（元）',
] as const;

/** The rules around the lists, as Alipay draws them. */
export const DETAIL_OPEN = '#-----------------------------------------业务明细列表----------------------------------------';
export const DETAIL_CLOSE = '#-----------------------------------------业务明细列表结束------------------------------------';
export const SUMMARY_OPEN = '#-----------------------------------------业务汇总列表----------------------------------------';
export const SUMMARY_CLOSE = '#----------------------------------------业务汇总列表结束-------------------------------------';
