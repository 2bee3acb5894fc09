export default defineAppConfig({
  pages: ['pages/pay/index'],
  window: {
    backgroundTextStyle: 'light',
    navigationBarBackgroundColor: '#fff',
    navigationBarTitleText: 'Pay',
    navigationBarTextStyle: 'black',
  },
  // A held payment-result call (4.2 waitForFinish) may last up to 55 s.
  networkTimeout: { request: 65000 },
});
