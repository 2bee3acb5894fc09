/** The published reference vectors of the request signature (docs/signing.md); any implementation of the signature must reproduce them. */
export const SIGNING_VECTORS = [
  {
    name: 'create prepay order',
    appSecret: 's3cr3t-app-secret',
    method: 'POST',
    path: '/submerchant-pay/',
    query: [
      ['_appid', 'app_demo'],
      ['_t', '1700000000000'],
    ] as Array<[string, string]>,
    body: '{"subMerchantId":"SM1","totalAmount":"12.34","orderId":null}',
    canonicalQuery: '_appid=app_demo&_t=1700000000000',
    signature: '61d08091d98727876ce7373a5b5c788beeb6f32f9aeebf472fac60ae7c2f8988',
  },
  {
    name: 'points balance with a user id needing encoding',
    appSecret: 's3cr3t-app-secret',
    method: 'GET',
    path: '/fungible-token/balance',
    query: [
      ['_t', '1700000000000'],
      ['_appid', 'app_demo'],
      ['userId', 'alice bob/中'],
      ['tokenId', 'PTS'],
      ['tokenAppId', 'app_demo'],
      ['userAppId', 'app_u'],
    ] as Array<[string, string]>,
    body: '',
    canonicalQuery: '_appid=app_demo&_t=1700000000000&tokenAppId=app_demo&tokenId=PTS&userAppId=app_u&userId=alice%20bob%2F%E4%B8%AD',
    signature: 'fecdca5e165bd995c9be016a352799401155c8dd8ee13341f58ab643cf582b46',
  },
] as const;
