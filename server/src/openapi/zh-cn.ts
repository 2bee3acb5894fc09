/**
 * The reference's prose in Chinese (`/openapi.json?lang=zh-CN`, the `/docs/` language switch): the
 * document's introduction, its groups, the signing rules and each operation's summary and
 * description, keyed by operation id. An operation without a text here keeps its English one
 * (`reference-prose.test.ts` checks that every signed API operation, every group and every
 * operation of the service itself has one). Names the reader types or reads in answers (fields,
 * error ids, settings) stay as they are.
 */

export interface OperationProse {
  summary: string;
  description?: string;
}

export const ZH_INFO =
  '面向在社交应用中销售的商户的支付、可信积分与上链记录。每个应答都带有 `version`（支付与商户为数字 1，捐赠、积分与上链为字符串 "1"）和 `status`，请先检查 `status`。' +
  '失败时应答 `{version, status: "fail", error, code, msg, traceId}`。';

export const ZH_SIGNING = `签名请求在查询串中带三个字段：\`_appid\`（应用 id）、\`_t\`（Unix 毫秒时间，与服务器时钟相差不超过 ±300 秒）和 \`_s\`。
\`_s\` 是以 AppSecret 的 UTF-8 字节为密钥、对以 \\n 连接的四行计算的 HMAC-SHA256（小写十六进制）：
大写的 HTTP 方法；相对于服务基础地址、按发送时原样的路径；规范化查询串（除 \`_s\` 外的每个字段，键和值按 RFC 3986 百分号编码，
先按键再按值排序，以 & 连接 k=v）；原始请求体字节的 SHA-256（小写十六进制，无请求体时为空串的哈希）。
改变状态的请求只接受一次：重试时请用新的 \`_t\` 重新签名。\`@kit/shared\` 的类型化客户端（\`KitClient\`）会为每次调用签名。`;

export const ZH_SECURITY: Record<string, string> = {
  appId: ZH_SIGNING,
  timestamp: 'Unix 毫秒时间（13 位数字）；见 appId。',
  signature: 'HMAC-SHA256 签名，64 个小写十六进制字符；见 appId。',
  posLogin: '由 POST /pos/api/login 设置（httpOnly，SameSite=Strict）。',
  consoleLogin: '由 POST /console/api/login 设置（httpOnly，SameSite=Strict）。',
  metricsToken: '设置了 METRICS_TOKEN 时使用。',
};

export const ZH_TAGS: Record<string, string> = {
  Payments: '预支付订单、支付参数与退款（规范 4.1–4.6）',
  Merchants: '商户、登录与支付参数（4.7、4.16、4.17）',
  'Profit sharing': '分账：接收方、分账单与完结（4.8）',
  Callbacks: '每个支付结果回调（第 6 节）及其每次尝试；重发一个，或恢复一个时间段',
  Reconciliation: '与渠道交易账单的每日对账',
  Donations: '上链的捐赠项目与捐赠（4.9–4.11）',
  'Trusted points': '积分余额与抵扣码（4.12、4.13）',
  Chain: '通用上链与查询（4.14、4.15）及包含证明',
  Operations: '健康检查、指标与本文档',
  'Channel notifications': '支付渠道通知本服务的地址',
  'POS display router': '/pos/ 收银屏背后的接口',
  'Console router': '/console/ 商户控制台背后的接口',
  'Mini-program router': '/mp/ 付款小程序背后的接口',
  Pages: '前端页面',
};

/** `规范第 4.1 节。`: what the English description starts with for an operation of the specification. */
export const zhSection = (section: string) => `规范第 ${section} 节。`;

export const ZH_OPERATIONS: Record<string, OperationProse> = {
  postSubmerchantPay: { summary: '创建预支付订单' },
  getSubmerchantPayPrePayPrepayId: {
    summary: '查询预支付订单，可挂起等待支付完成',
    description:
      '带 `waitForFinish=1` 时，应答会挂起，直到订单离开 `active` 或到达挂起时限（WAIT_FOR_FINISH_HOLD，最多 55 秒）。客户端循环：带 waitForFinish=1 调用；`status` 为 `finish` 时停止；' +
      '其他 `active` 应答、网络错误或非 200 应答时立即再次调用。未知、格式错误或其他应用的 id 应答 HTTP 200，`status: "fail"`、`error: "not_found"`（既非 active 也非 finish：循环停止并告知付款人）。',
  },
  postSubmerchantPayRefund: {
    summary: '全额退款一笔已支付订单',
    description:
      '除签名外，还需要订单所属子商户或其父商户的登录令牌（4.16）；没有则 401。成功表示已受理；渠道完成退款后订单变为 `refunded`，并发送 `refunded` 回调。' +
      '渠道无法连接时（503），退款保持已申请状态，由服务自行完成。',
  },
  postMerchantLogin: {
    summary: '以商户或子商户身份登录',
    description: '不签名：以密码认证，只在安全连接上接受（TLS，或来自受信代理的 `X-Forwarded-Proto: https`）。',
  },
  postMerchant: { summary: '创建父商户或子商户', description: '`parameters.appId` 成为所有者，可以与签名的应用不同。' },
  putMerchantPaymentParams: {
    summary: '设置商户某一渠道的支付参数',
    description: '由拥有该商户的应用签名（否则 401）。合并：发送的字段被设置，`null` 清除字段，未发送的字段不变。子商户逐字段继承父商户的值。',
  },
  postSubmerchantPayProfitSharingReceivers: {
    summary: '为商户及其子商户的订单添加分账接收方（幂等）',
    description:
      '由商户或其父商户的所有者应用签名；商户（或其父商户）须已开通分账。关系类型为 `CUSTOM` 时必须提供 `customRelation`（最多 10 个字符），其他类型时拒绝，与平台要求一致。',
  },
  postSubmerchantPayProfitSharingReceiversRemove: { summary: '删除分账接收方（幂等）；渠道关闭仍待分给它的份额' },
  postSubmerchantPayProfitSharingOrders: {
    summary: '将一笔已支付订单分给已添加的接收方；立即受理，结果稍后得知',
    description:
      '一笔订单的所有分账合计最多为其金额的 30 %（向下取整到分）。相同的 `outOrderNo` 再次提交是同一笔分账；同一单号下不同的分账被拒绝。`finish: true` 同时结束该订单的分账。',
  },
  getSubmerchantPayProfitSharingOrdersOutOrderNo: { summary: '一笔分账（或完结）：其状态与每个接收方的结果' },
  postSubmerchantPayProfitSharingFinish: { summary: '结束订单的分账：未分出的金额解冻给商户' },
  getSubmerchantPayProfitSharingAmountsPrepayId: { summary: '订单可分（30 %）、已分的金额，以及剩余部分是否已解冻' },
  getCallbacks: {
    summary: '一笔订单或一个商户的回调，最新的在前，每个带全部尝试',
    description:
      '给出 `prepayId`，或 `merchantId`（父商户包含其子商户），可选 `state` 和创建时间段 `since` ≤ t < `until`（ISO 8601）。由拥有该商户（或其父商户）的应用签名；其他应用得到 `not_found`。' +
      '`answer` 是接收端应答的前 200 字节。存在 `data.next` 时，把它作为 `cursor` 取下一页（`limit` 默认 50，最多 100）。',
  },
  postCallbacksResend: {
    summary: '立即重新发送一个回调，重新签名，按重试计划开始新一轮尝试',
    description:
      '仍在发送中的回调不会重复：等待下次重试的，立即在原有一轮中尝试；正在尝试的继续（应答 `resent: false`）。并发的重发请求，无论在哪个实例，只开始一轮。',
  },
  postCallbacksRecover: { summary: '重发一个商户（及其子商户）在某时间段内创建的所有已放弃回调；应答重发的数量' },
  getReconciliation: {
    summary: '已对账的日期，最新的在前，带调用方商户的差异数和待处理数',
    description:
      '最多 `limit`（默认 30，最多 100）个日期与渠道的报告，给出 `before` 时为其之前的日期。`failed` 表示无法取得或读取账单（`error`）；每日对账会再试。',
  },
  getReconciliationDate: {
    summary: '某个北京时间日期与渠道交易账单的对账：调用方商户的差异',
    description:
      '当天每个渠道完成的报告，包含与签名应用的商户有关的差异（自有的，或自有父商户的子商户；只有渠道知道的支付，显示给其商户带有该渠道商户号的应用）。对账完成前应答 404 `not_found`。',
  },
  postDonationProject: { summary: '上传捐赠项目（加密，排队上链）' },
  postDonationDonate: { summary: '上传一笔捐赠（加密，排队上链）' },
  postDonationFetchOnChainIds: { summary: '捐赠项目或捐赠的链上 id（最多 20 个）' },
  getFungibleTokenBalance: { summary: '用户某种积分的余额' },
  getFungibleTokenChainPay: { summary: '用户某种积分的抵扣码（二维码内容），20 秒内有效' },
  postCommonChainUpload: {
    summary: '上传最多 50 个带类型的条目上链',
    description: '操作类型：record、donation.project、donation.donate、points.create、points.issue、points.transfer、chainPay。`args.id` 是调用方的去重键。',
  },
  postCommonChainUploadFetchOnChainIds: { summary: '查询已上传的条目（最多 500 个）：已确认、待确认（`{id: ""}`）或失败/未知（`{}`）' },
  getCommonChainUploadProofId: { summary: '按链上 id 取调用方某个条目的包含证明（用 `verifyChainProof` 验证，用 `verifyAnchoredProof` 验证其锚定）' },
  getHealth: { summary: '就绪检查：数据库应答时 200；数据库无应答（`unavailable`，附原因）或正在停止时 503' },
  getHealthLive: { summary: '存活检查：进程在提供 HTTP 服务时 200，与数据库无关' },
  getMetrics: { summary: 'Prometheus 指标（文本格式）；设置了 METRICS_TOKEN 时需要 bearer 令牌' },
  getOpenapiJson: { summary: '本文档（OpenAPI 3.1）' },
  getDocs: { summary: '本文档的可读参考页' },
  getDocsTryItJs: { summary: '参考页的“在线调用”：在浏览器中用只保存在页面内存里的应用为调用签名' },
  postPayNotifyRealmPay: {
    summary: '来自支付渠道的支付通知（本服务提供给渠道的通知地址）',
    description: '按渠道的协议应答，从不使用本工具包的 `{status: "fail"}`：除确认之外的任何应答都会让渠道重发通知；被拒绝的通知不改变任何东西。',
  },
  postPayNotifyRealm: {
    summary: '来自支付渠道的通知，支付与退款共用一个地址（如支付宝）',
    description:
      '按渠道的协议应答（支付宝为 `success`），从不使用本工具包的 `{status: "fail"}`：除确认之外的任何应答都会让渠道重发通知；被拒绝的通知不改变任何东西。',
  },
  postPayNotifyRealmRefund: {
    summary: '来自支付渠道的退款通知（本服务提供给渠道的通知地址）',
    description: '按渠道的协议应答，从不使用本工具包的 `{status: "fail"}`：除确认之外的任何应答都会让渠道重发通知；被拒绝的通知不改变任何东西。',
  },
};
